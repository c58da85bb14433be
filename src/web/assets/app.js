"use strict";
// The pages' one script, served by the daemon under a content-hashed URL (src/web/assets.ts).
// Copy buttons (<button data-copy="ID">) copy the text of element ID. Without this script the
// buttons stay hidden and the SQL is still plain, selectable text.
(function () {
  function fallbackCopy(source) {
    var range = document.createRange();
    range.selectNodeContents(source);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    var ok;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    selection.removeAllRanges();
    return ok;
  }
  function announce(button, ok) {
    var status = document.getElementById(button.getAttribute("data-copy") + "-status");
    if (status) status.textContent = ok ? "Copied to the clipboard" : "Copy failed: select the text and copy it";
    button.textContent = ok ? "Copied" : "Copy failed";
    setTimeout(function () {
      button.textContent = "Copy";
    }, 2000);
  }
  document.addEventListener("DOMContentLoaded", function () {
    var buttons = document.querySelectorAll("button[data-copy]");
    for (var i = 0; i < buttons.length; i++) buttons[i].hidden = false;
  });
  document.addEventListener("click", function (event) {
    var button = event.target && event.target.closest ? event.target.closest("button[data-copy]") : null;
    if (!button) return;
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var text = source.textContent || "";
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () {
          announce(button, true);
        },
        function () {
          announce(button, fallbackCopy(source));
        },
      );
    } else {
      announce(button, fallbackCopy(source));
    }
  });
})();
