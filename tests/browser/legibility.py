"""What a reader cannot read or hit: text drawn under 11 px and tap targets under 24 × 24 px; and axe's verdict.

Measured in the page as it is laid out, not from the CSS: an SVG's text counts at the size it is drawn after
the figure is scaled to the screen (font size × the SVG's on-screen scale), HTML text at its computed size.
Only what is rendered counts (closed panels, `display: none` and visually hidden text such as KaTeX's MathML
copy are skipped). A radio or checkbox counts together with its label, which a tap also reaches. A target
smaller than 24 × 24 px passes, as WCAG 2.2's "target size (minimum)" allows, when it is a link inside a
sentence, or when a 24 px circle centred on it meets no other target.
"""

MIN_TEXT_PX = 11
AXE_IMPACTS = ("serious", "critical")
MIN_TARGET_PX = 24

_TEXT_JS = """([root, minPx]) => {
  const out = [];
  const scope = document.querySelector(root);
  if (!scope) return ['no element matches ' + root];
  // a closed <details> keeps a layout box for its content in Chromium, but the reader sees only its summary
  const insideClosedDetails = (el) => {
    for (let d = el.closest('details'); d; d = d.parentElement && d.parentElement.closest('details'))
      if (!d.open && !(d.querySelector(':scope > summary') || {contains: () => false}).contains(el)) return true;
    return false;
  };
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || seen.has(el) || !node.textContent.trim()) continue;
    seen.add(el);
    if (el.closest('.katex-mathml, script, style, noscript, title, desc')) continue;
    if (insideClosedDetails(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const rect = range.getBoundingClientRect();
    if (rect.width < 2 || rect.height < 2) continue;                 // not rendered, or visually hidden
    const style = getComputedStyle(el);
    if (style.visibility !== 'visible' || parseFloat(style.opacity) === 0) continue;
    let px = parseFloat(style.fontSize);
    const svg = el.closest('svg');
    if (svg) {
      const m = (el.getScreenCTM && el.getScreenCTM()) || svg.getScreenCTM();
      if (m) px *= Math.hypot(m.a, m.b);
    }
    if (px < minPx - 0.05) out.push(`${px.toFixed(1)} px: "${node.textContent.trim().slice(0, 30)}" in `
                                    + `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`
                                    + ` (${el.closest('[id]') ? '#' + el.closest('[id]').id : '?'})`);
  }
  return out;
}"""

_TARGET_JS = """([root, minPx]) => {
  const scope = document.querySelector(root);
  if (!scope) return ['no element matches ' + root];
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=tab],'
            + ' [role=slider], [role=checkbox], [role=radio], [tabindex]:not([tabindex="-1"])';
  const all = [...scope.querySelectorAll(sel)].filter(el => {
    if (el.closest('[hidden], [inert]')) return false;
    const r = el.getBoundingClientRect();
    const st = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && st.visibility === 'visible';
  });
  // a radio or checkbox is also operated through its label (a tap on the label checks it): measure the two
  // together, or the label alone when the input is visually hidden
  const boxOf = el => {
    const r = el.getBoundingClientRect();
    if (!((el.type === 'radio' || el.type === 'checkbox') && el.labels && el.labels[0])) return r;
    const l = el.labels[0].getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || l.width === 0) return l.width ? l : r;
    const left = Math.min(r.left, l.left), top = Math.min(r.top, l.top);
    const right = Math.max(r.right, l.right), bottom = Math.max(r.bottom, l.bottom);
    return { left, top, right, bottom, width: right - left, height: bottom - top };
  };
  const boxes = all.map(boxOf);
  const inSentence = el => el.tagName === 'A' && getComputedStyle(el).display === 'inline'
      && el.parentElement && /^(P|LI|TD|DD|FIGCAPTION|EM|STRONG|SPAN)$/.test(el.parentElement.tagName)
      && el.parentElement.textContent.trim().length > el.textContent.trim().length + 4;
  const meets = (i) => {
    const b = boxes[i], cx = b.left + b.width / 2, cy = b.top + b.height / 2, r = minPx / 2;
    return boxes.some((o, j) => {
      if (j === i || all[j].contains(all[i]) || all[i].contains(all[j])) return false;
      const dx = Math.max(o.left - cx, 0, cx - o.right), dy = Math.max(o.top - cy, 0, cy - o.bottom);
      return Math.hypot(dx, dy) < r;
    });
  };
  const out = [];
  all.forEach((el, i) => {
    const b = boxes[i];
    if (b.width >= minPx - 0.5 && b.height >= minPx - 0.5) return;
    if (inSentence(el) || !meets(i)) return;
    out.push(`${b.width.toFixed(0)}×${b.height.toFixed(0)} px: ${el.tagName.toLowerCase()}`
             + `${el.className && el.className.baseVal === undefined ? '.' + String(el.className).split(' ').join('.') : ''}`
             + ` "${(el.textContent || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 30)}"`
             + ` (${el.closest('[id]') ? '#' + el.closest('[id]').id : '?'})`);
  });
  return out;
}"""


def small_text(page, root="article", min_px=MIN_TEXT_PX):
    """Each rendered text under `root` drawn smaller than min_px, as 'size: "text" in element (#section)'."""
    return page.evaluate(_TEXT_JS, [root, min_px])


def small_targets(page, root="article", min_px=MIN_TARGET_PX):
    """Each tap target under `root` smaller than min_px square that has another target within reach."""
    return page.evaluate(_TARGET_JS, [root, min_px])


SETTLED = """() => document.getAnimations().every(a =>
    a.playState !== "running" || a.effect.getComputedTiming().endTime === Infinity)"""


def axe_serious(page, root=None):
    """Each serious or critical axe violation on the page (or under `root`), the theme's markup included."""
    from axe_playwright_python.sync_playwright import Axe
    # a fade still running (E4's verify step fades its new line in) reads as low contrast: let every finite
    # animation and transition end first, as a reader's eye would
    page.wait_for_function(SETTLED, timeout=10_000)
    results = Axe().run(page, context=root) if root else Axe().run(page)
    bad = [v for v in results.response["violations"] if v.get("impact") in AXE_IMPACTS]
    return [f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] for n in v["nodes"][:6])
            for v in bad]
