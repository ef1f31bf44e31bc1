// Starts Swagger UI on the API's OpenAPI document. A file of its own, served like the renderer, because
// the page's Content-Security-Policy runs no inline script.
window.ui = SwaggerUIBundle({
  url: document.getElementById('swagger-ui').dataset.url,
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  // Every operation listed under its tag, collapsed; ids shown, as clients and GrowthBook's docs name them.
  docExpansion: 'list',
  displayOperationId: true,
  deepLinking: true,
  filter: true,
  tryItOutEnabled: false,
  // No badge from validator.swagger.io: the page loads nothing from another origin.
  validatorUrl: null,
});
