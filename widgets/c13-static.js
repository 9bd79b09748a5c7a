/* The page's static helper, loaded on every page:
 * - it loads the live widgets (c13-widgets.js, an ES module) from next to itself, except on file://, where a
 *   browser refuses module scripts (a CORS error in the console): there each experiment keeps its static version
 *   and shows its notice that live runs need the local server (math is rendered at build time);
 * - every box that scrolls sideways (a wide table in the theme's .md-typeset__scrollwrap, a display formula,
 *   a .c13-scroll box) becomes reachable by keyboard: tabindex 0, role "region" and a name taken from what
 *   it holds, so that the arrow keys scroll it. Only boxes that really scroll at the current width get
 *   this, and it is taken back when a resize lets them fit; a box that has its own tabindex is left alone.
 * Runs once per page view; should instant navigation ever be switched on, Material's document$ calls it
 * again for each new page. A classic script: the block keeps its names off the window. */
"use strict";
{

  // this script's own address, known only while it first runs: the widgets' module lies beside it
  const HERE = document.currentScript && document.currentScript.src;
  const SCROLLERS = ".md-typeset__scrollwrap, .md-typeset div.arithmatex, .md-typeset .c13-scroll";
  const MARK = "data-c13-scroller";
  // a box with something focusable inside is reached (and scrolled) through it: E2's formula terms
  const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]:not([tabindex='-1']):not([" + MARK + "])";

  function showFileNotices(root) {
    if (window.location.protocol !== "file:") return;
    root.querySelectorAll(".c13-exp-notice").forEach(function (el) {
      el.hidden = false;
    });
  }

  function text(el) {
    return el ? el.textContent.replace(/\s+/g, " ").trim() : "";
  }

  /* what the box holds, in a few words: a table's caption or its column heads, or "公式" */
  function nameOf(box) {
    var table = box.querySelector("table");
    if (table) {
      var caption = text(table.querySelector("caption"));
      if (caption) return "表格：" + caption + "（可左右滚动）";
      var heads = Array.prototype.slice.call(table.querySelectorAll("thead th"), 0, 3).map(text)
        .filter(Boolean);
      return "表格" + (heads.length ? "：" + heads.join("、") + "……" : "") + "（可左右滚动）";
    }
    if (box.querySelector(".katex")) return "公式（可左右滚动）";
    return "可左右滚动的内容";
  }

  function scrolls(box) {
    return box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== "visible";
  }

  /* a box around another scrolling box (a .c13-scroll around the theme's wrapper) leaves the keyboard to
   * the inner one, and one with a control inside to the control; names are kept unique on the page */
  function markScrollers(root) {
    var names = {};
    root.querySelectorAll("[" + MARK + "]").forEach(function (box) {
      names[box.getAttribute("aria-label")] = true;
    });
    root.querySelectorAll(SCROLLERS).forEach(function (box) {
      var ours = box.hasAttribute(MARK);
      if (!ours && box.hasAttribute("tabindex")) return; // a widget's own scrolling box
      if (scrolls(box) && !box.querySelector(SCROLLERS + ", " + FOCUSABLE)) {
        if (ours) return;
        var name = nameOf(box);
        for (var n = 2; names[name]; n++) name = nameOf(box).replace(/（可左右滚动）$/, "（其" + n + "，可左右滚动）");
        names[name] = true;
        box.setAttribute(MARK, "");
        box.tabIndex = 0;
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", name);
      } else if (ours && document.activeElement !== box) {
        delete names[box.getAttribute("aria-label")];
        box.removeAttribute(MARK);
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    });
  }

  /* again after the layout changes: a resize, fonts loaded, or new content (the theme wraps its tables,
   * the widgets draw their live versions) */
  let pending = false;
  function later() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      markScrollers(document);
    });
  }

  let watching = false;
  function watch() {
    if (watching) return;
    watching = true;
    window.addEventListener("resize", later);
    window.addEventListener("load", later);
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(later);
    if (window.MutationObserver) {
      new MutationObserver(later).observe(document.body, { childList: true, subtree: true });
    }
  }

  function loadWidgets() {
    if (window.location.protocol === "file:" || !HERE || document.querySelector("script[data-c13-widgets]")) return;
    const script = document.createElement("script");
    script.type = "module";
    script.src = new URL("c13-widgets.js", HERE).href;
    script.dataset.c13Widgets = "";
    document.head.appendChild(script);
  }

  function init() {
    loadWidgets();
    showFileNotices(document.body);
    markScrollers(document);
    watch();
  }

  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
}
