// Search as you type on the card grid: the same GET the form submits, fetched from this origin,
// and the results swapped in. Without JavaScript the form works as it is.
(function () {
  "use strict";
  var form = document.querySelector("form[data-live-search]");
  var results = document.getElementById("results");
  if (!form || !results || !window.fetch || !window.DOMParser) return;
  var input = form.querySelector("input[type=search]");
  var timer = null;
  var pending = null;

  function currentUrl() {
    var params = new URLSearchParams(new FormData(form));
    ["search", "ordering"].forEach(function (name) {
      if (!params.get(name)) params.delete(name);
    });
    var query = params.toString();
    return form.action.split("?")[0] + (query ? "?" + query : "");
  }

  function refresh() {
    var url = currentUrl();
    if (pending) pending.abort();
    pending = new AbortController();
    fetch(url, { signal: pending.signal, headers: { Accept: "text/html" } })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var page = new DOMParser().parseFromString(html, "text/html");
        var fresh = page.getElementById("results");
        var chips = page.querySelector(".chips");
        if (!fresh) return;
        results.innerHTML = fresh.innerHTML;
        if (chips) document.querySelector(".chips").innerHTML = chips.innerHTML;
        // The language switch links this search in the other language.
        page.querySelectorAll("a[data-language]").forEach(function (fresh) {
          var link = document.querySelector('a[data-language="' + fresh.dataset.language + '"]');
          if (link) link.setAttribute("href", fresh.getAttribute("href"));
        });
        document.title = page.title;
        history.replaceState(null, "", url);
      })
      .catch(function (error) {
        if (error.name !== "AbortError") form.submit();
      });
  }

  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  });
  form.querySelector("select").addEventListener("change", refresh);
})();
