/**
 * The renderer for browser tests: built once per test run (test/setup/global-renderer.ts) and
 * shared by every test file, so a test must only read the folder. Its path, or the build's
 * one-line error.
 */
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where test/setup/global-renderer.ts hands out the run's renderer build. */
    canopyRendererUrl: string;
  }
}

/** The folder of this run's renderer build (React's production build, as `npm start` serves). */
export async function sharedRenderer(): Promise<string> {
  const url = inject("canopyRendererUrl");
  if (!url)
    throw oneLine("no shared renderer: run the tests with vitest.config.ts (its globalSetup builds it)");
  const response = await fetch(url);
  const text = await response.text();
  if (!response.ok) throw oneLine(text);
  return text;
}

/** An error that shows as its message alone: the stack of this helper says nothing of the cause. */
function oneLine(message: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}`;
  return error;
}
