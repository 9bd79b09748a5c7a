// The entry of the lesson's five experiments (loaded as an ES module by every page; mkdocs.yml).
//
// Once per page view it reads the embedded data (<script type="application/json" id="c13-widget-data">),
// finds each <section class="c13-exp" data-widget="eN">, imports its module (MODULES) and calls render(element, data)
// once. Should the theme's instant navigation ever be switched on, Material's document$ emits for every new
// page and the same happens there. One Pyodide worker serves the whole tab (`python`, from python-host.js):
// E2 asks it to start when the reader reaches the experiment, E6 when the reader runs it; it lives across page changes.
//
// URLs are derived from this module's own URL, so the site works at / and under a sub-path alike.

import { PYODIDE_STEPS, python } from "./python-host.js";

export { PYODIDE_STEPS, python };

const HERE = new URL("./", import.meta.url);          // …/assets/c13/
const SITE_ROOT = new URL("../../", import.meta.url); // the site's root folder
// each experiment's module, relative to this file: every experiment is a folder of its own, entered by its index.js
const MODULES = { e1: "e1/index.js", e2: "e2/index.js", e3: "e3/index.js", e4: "e4/index.js", e5: "e5/index.js",
  e6: "e6/index.js", pair: "pair/index.js", tv: "tv/index.js" };

// ---------------------------------------------------------------------------------------------------
// page views
// ---------------------------------------------------------------------------------------------------

let cached = { node: null, data: null };

function readData() {
  const node = document.getElementById("c13-widget-data");
  if (!node) return null;
  if (cached.node !== node) {
    const data = JSON.parse(node.textContent);
    data.python = python;
    data.pyodideSteps = PYODIDE_STEPS;
    data.urls = {
      indexURL: new URL(data.pyodide, SITE_ROOT).href,
      samplerURL: new URL(data.sampler, SITE_ROOT).href,
      serveCommand: data.serve_command,
      // E6's files (float16 weights, tokenizer.json) and their sizes, for the progress in bytes
      // and the sha256 the build recorded of each (c13.json → browser.files), checked before anything is parsed
      e6: data.e6 ? { modelsURL: new URL(data.e6.models, SITE_ROOT).href, files: data.e6.files,
        sha256: data.e6.sha256 || null, target: data.e6.target } : null,
    };
    python.configure(data.urls);
    cached = { node, data };
  }
  return cached.data;
}

async function init() {
  const sections = [...document.querySelectorAll("section.c13-exp[data-widget]")];
  if (!sections.length) return;
  let data;
  try {
    data = readData();
  } catch (err) {
    console.warn("c13: the embedded widget data cannot be read; the static versions stay", err);
    return;
  }
  if (!data) return;
  for (const section of sections) {
    const name = section.dataset.widget;
    if (!Object.hasOwn(MODULES, name) || section.dataset.c13Init) continue;
    section.dataset.c13Init = "started";
    try {
      const module = await import(new URL(MODULES[name], HERE).href);
      module.render(section, data);
      section.dataset.c13Init = "done";
    } catch (err) {
      section.dataset.c13Init = "failed";
      section.querySelectorAll(":scope > .c13-live").forEach((n) => n.remove());
      section.querySelectorAll(":scope > .c13-static-box").forEach((n) => { n.open = true; });
      section.classList.remove("c13-is-live");
      console.warn(`c13: experiment ${name} could not start; its static version stays`, err);
    }
  }
  document.documentElement.dataset.c13Widgets = "ready";
}

if (window.document$ && typeof window.document$.subscribe === "function") {
  window.document$.subscribe(() => { init(); });
} else if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => { init(); });
} else {
  init();
}
