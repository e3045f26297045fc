// Renderer build (React): renderer/ → dist/renderer, relative asset paths so file:// works in Electron.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  root: "renderer",
  base: "./",
  plugins: [react()],
  build: {
    outDir: "../dist/renderer",
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
  },
  logLevel: "warn",
});
