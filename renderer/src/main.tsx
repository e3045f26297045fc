/**
 * Renderer entry: mounts the React app.
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.tsx";
import "./styles.css";

const root = document.getElementById("root");
if (!root) throw new Error("missing #root element");
// Each pane's error boundary (PaneBoundary) logs what it caught, once, saying which pane failed:
// React's own report of the same error would log it a second time.
createRoot(root, { onCaughtError: () => {} }).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
