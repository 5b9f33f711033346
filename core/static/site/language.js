// The language switch remembers the visitor's choice in Django's language cookie, which the
// site's root (/) and the admin read; the pages themselves take their language from their
// address, so the switch works without this script too.
document.addEventListener("click", (event) => {
  const link = event.target.closest && event.target.closest("a[data-language]");
  if (!link) return;
  const language = encodeURIComponent(link.dataset.language);
  document.cookie = `django_language=${language}; path=/; max-age=31536000; samesite=lax`;
});
