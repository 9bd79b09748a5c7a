// E4 · the verify motion: one recorded round of the replay, step by step. The round is the one E4's replay is on
// (one round selector for the whole experiment: E4 calls showRound); the reader steps with buttons or the slider,
// or plays it; every step is drawn by widgets/figures/verify_steps.mjs (the
// function that drew the build-time version, so the first state here is the static one: the whole round). Under
// prefers-reduced-motion the steps change without any animation (widgets/css/e4.css turns them off).
import { el, fromMarkup, uid } from "../c13-util.js";
import { roundSteps, verifySteps } from "../figures/verify_steps.mjs";

const STEP_MS = 1000;

function controls(gid, actions) {
  const button = (text, onclick) => el("button", { type: "button", class: "md-button c13-small", text, onclick });
  const slider = el("input", { type: "range", id: `${gid}-step`, class: "c13-v-slider", min: 1, step: 1,
    oninput: actions.slide });
  const buttons = { prev: button("◀ 上一步", actions.prev), play: button("▶ 播放", actions.toggle),
    next: button("下一步 ▶", actions.next) };
  const field = (text, control) => el("span", { class: "c13-v-field" }, el("label", { for: control.id, text }), control);
  const box = el("div", { class: "c13-v-controls" },
    el("div", { class: "c13-buttons", role: "group", "aria-label": "逐步控制" }, Object.values(buttons)),
    field("第几步", slider));
  return { box, slider, buttons };
}

/** Turn the static figure inside `block` into the verify motion. data: the page's widget data. Returns
 *  {showRound(i)}: show round i (from 0) whole, as E4's replay moves; null when the block has no figure. */
export function mountVerifyMotion(block, data) {
  const figure = block.querySelector(".c13-verify");
  if (!figure) return null;
  const { replay, labels } = data;
  const gid = uid("e4-verify");
  const state = { round: Number(figure.dataset.round), step: Number(figure.dataset.step), timer: null };
  const steps = () => roundSteps(replay, labels, state.round);
  const { box, slider, buttons } = controls(gid, {
    slide: () => { stop(); go(Number(slider.value)); },
    prev: () => { stop(); go(state.step - 1); },
    next: () => { stop(); go(state.step + 1); },
    toggle: () => toggle(),
  });
  const status = el("p", { class: "c13-v-status", role: "status" });
  const hint = el("p", { class: "c13-hint", text: "这里跟着上面的回放换轮，先显示整轮；按“播放”，或用“上一步 / 下一步”和滑块逐步看。" });
  // the controls, the status and the figure in a live box of their own (the widgets' control styles and focus ring)
  const live = el("div", { class: "c13-live c13-v-live" });
  figure.before(live);
  live.append(box, hint, status, figure);
  let current = figure;

  function go(step) {
    state.step = Math.max(1, Math.min(steps().length, step));
    draw();
  }
  function stop() {
    if (state.timer) clearInterval(state.timer);
    state.timer = null;
    buttons.play.textContent = "▶ 播放";
    buttons.play.setAttribute("aria-pressed", "false");
  }
  function toggle() {
    if (state.timer) { stop(); return; }
    if (state.step >= steps().length) go(1);
    buttons.play.textContent = "❚❚ 暂停";
    buttons.play.setAttribute("aria-pressed", "true");
    state.timer = setInterval(() => {
      if (state.step < steps().length) go(state.step + 1);
      if (state.step >= steps().length) stop();
    }, STEP_MS);
  }
  function draw(first = false) {
    const total = steps().length;
    if (!first) {
      const next = fromMarkup(verifySteps({ replay, labels, round: state.round, step: state.step, id: figure.id }));
      current.replaceWith(next);
      current = next;
    }
    slider.max = String(total);
    slider.value = String(state.step);
    slider.setAttribute("aria-valuetext", `第 ${state.step} / ${total} 步`);
    // aria-disabled, not disabled: a button with nothing to do keeps the keyboard focus; go() clamps the step
    buttons.prev.setAttribute("aria-disabled", state.step <= 1 ? "true" : "false");
    buttons.next.setAttribute("aria-disabled", state.step >= total ? "true" : "false");
    block.dataset.round = String(state.round);
    block.dataset.step = String(state.step);
    status.textContent = `第 ${state.step} / ${total} 步：${steps()[state.step - 1].text}`;
  }

  draw(true);
  block.classList.add("c13-verify-live");
  return {
    showRound(i) {
      if (i === state.round) return;
      stop();
      state.round = i;
      state.step = steps().length;
      draw();
    },
  };
}
