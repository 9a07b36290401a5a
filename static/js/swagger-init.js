// Starts the vendored Swagger UI on /docs (kept in a file: the Content-Security-Policy allows
// scripts from this origin only, so FastAPI's inline start-up script cannot run).
(function () {
  "use strict";
  window.ui = SwaggerUIBundle({
    url: document.documentElement.dataset.openapi || "/openapi.json",
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis],
  });
})();
