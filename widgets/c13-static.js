/* The page's static helper (the live widgets are c13-widgets.js): on file:// show each experiment's
 * notice that live runs need the local server (math is rendered at build time). Runs once per page view;
 * should instant navigation ever be switched on, Material's document$ calls it again for each new page. */
(function () {
  "use strict";

  function showFileNotices(root) {
    if (window.location.protocol !== "file:") return;
    root.querySelectorAll(".c13-exp-notice").forEach(function (el) {
      el.hidden = false;
    });
  }

  function init() {
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
