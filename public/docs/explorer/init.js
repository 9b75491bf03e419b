// Swagger UI on this Worker's own /openapi.json; nothing is loaded from elsewhere.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  displayRequestDuration: true,
  filter: true,
  persistAuthorization: true,
  tryItOutEnabled: true,
  validatorUrl: null,
  // The API expects `Service-Authorization: Token <API_KEY>`; a bare key gets the prefix.
  requestInterceptor: (request) => {
    const value = request.headers["Service-Authorization"];
    if (value && !/^Token\s/.test(value)) request.headers["Service-Authorization"] = `Token ${value}`;
    return request;
  },
});
