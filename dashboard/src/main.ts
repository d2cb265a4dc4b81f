const app = document.querySelector<HTMLDivElement>("#app");
if (app) {
  app.innerHTML = `<main><h1>Clarion</h1><p>The dashboard for workflows, subscribers and messages is coming. The API reference is at <a href="/docs">/docs</a>.</p></main>`;
}
