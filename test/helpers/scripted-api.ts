/**
 * A stand-in for renderer/src/api.ts in the renderer store tests, returned by their vi.mock
 * factory: each contract call is answered by the test's script (one function per channel), a
 * channel the script does not name fails as unexpected, and no events ever come. gate() holds an
 * answer back until the test lets it go.
 */

/** As renderer/src/api.ts's: a contract error with its code. */
export class ApiCallError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** Channel → answer (may be async or throw); each answer takes the call's input as it types it. */
export type ApiScript = Record<string, (input: never) => unknown>;

export interface ScriptedApiOptions {
  /** Called with every call before it is answered (the test's own list of calls). */
  record?: (channel: string, input: unknown) => void;
}

export function scriptedApi(script: ApiScript, options: ScriptedApiOptions = {}) {
  return {
    ApiCallError,
    transport: "browser" as const,
    onEvent: () => () => undefined,
    onEventsConnected: () => () => undefined,
    call: async (channel: string, input: unknown) => {
      options.record?.(channel, input);
      if (!Object.hasOwn(script, channel)) throw new Error(`unexpected ${channel}`);
      return (script[channel] as (input: unknown) => unknown)(input);
    },
  };
}

/** The settings a store reload reads: no model, compaction on with the default reserve. */
/** A promise (for a scripted answer to wait on) and the function that resolves it. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

export const noModelSettings = () => ({ model: null, compaction: { reserveTokens: 16384, enabled: true } });

/** What a store reload of session `sessionId` asks for: its tree and LLM view at `leafId`, the settings. */
export function reloadScript(sessionId: string, leafId: string | null): ApiScript {
  return {
    "session:tree": () => ({ sessionId, viewLeafId: leafId, nodes: [], problems: [] }),
    "settings:get": noModelSettings,
    "context:get": () => ({ sessionId, leafId, messages: [] }),
  };
}
