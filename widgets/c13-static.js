/* The page's static helpers (no widgets yet): render the math with the local KaTeX, and on file://
 * show each experiment's notice that live runs need the local server. Runs once per page view; should
 * instant navigation ever be switched on, Material's document$ calls it again for each new page. */
(function () {
  "use strict";

  var DELIMITERS = [
    { left: "\\(", right: "\\)", display: false },
    { left: "\\[", right: "\\]", display: true }
  ];

  function renderMath(root) {
    if (typeof window.renderMathInElement !== "function") return;
    // Only the elements pymdownx.arithmatex marked: token labels elsewhere may contain "\(" as plain text.
    root.querySelectorAll(".arithmatex").forEach(function (el) {
      if (el.getAttribute("data-c13-math") === "done") return;
      window.renderMathInElement(el, { delimiters: DELIMITERS, throwOnError: false });
      el.setAttribute("data-c13-math", "done");
    });
  }

  function showFileNotices(root) {
    if (window.location.protocol !== "file:") return;
    root.querySelectorAll(".c13-exp-notice").forEach(function (el) {
      el.hidden = false;
    });
  }

  function init() {
    renderMath(document.body);
    showFileNotices(document.body);
  }

  if (typeof window.document$ !== "undefined" && window.document$.subscribe) {
    window.document$.subscribe(init);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
