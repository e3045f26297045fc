/**
 * The in-process API: validates input against the channel's schema, runs the handler, and turns
 * every outcome into an ApiResult. All transports (IPC, HTTP, CLI, tests) go through `call`.
 */
import type { Channel, RequestInput, RequestOutput } from "../../core/api/contract.ts";
import type { ApiResult } from "../../core/api/dto.ts";
import { describeInputError, inputSchemas } from "../../core/api/schemas.ts";
import { untilWriteLockFree } from "../library/lock-wait.ts";
import { tellLockWait } from "../library/lock-wait-told.ts";
import { LIBRARY_WRITES } from "../library/write-gate.ts";
import { assertLibraryInPlace } from "../store/library-identity.ts";
import { ApiFailure, toApiError } from "./errors.ts";
import { handlers } from "./handlers/index.ts";
import { tooLargeError } from "./too-large.ts";
import type { AppContext } from "./types.ts";

export interface Api {
  call<C extends Channel>(channel: C, input: RequestInput<C>): Promise<ApiResult<RequestOutput<C>>>;
  /** For transports that receive untyped input (HTTP, IPC): validated like any other call. */
  callUnknown(channel: string, input: unknown): Promise<ApiResult<unknown>>;
  readonly ctx: AppContext;
}

function isChannel(name: string): name is Channel {
  return Object.hasOwn(inputSchemas, name);
}

/**
 * Waits while another process writes the library; past `otherWriterLimitMs`, refuses the request
 * saying what holds the library. SQLite's own wait (busy_timeout, 5 s) held the serving thread,
 * and every other request, up meanwhile. A long wait is told to the pages (library:write-waiting).
 */
async function untilLibraryWritable(ctx: AppContext): Promise<void> {
  const limit = ctx.writes.otherWriterLimitMs;
  if (await untilWriteLockFree(ctx.db, ctx.writes, limit, undefined, tellLockWait(ctx.events))) return;
  const seconds = Math.round(limit / 1000);
  throw new ApiFailure(
    "conflict",
    `The library is busy: another Canopy process on the same library file (a CLI command such as an import or prune, or another Canopy app) has been writing to it for more than ${seconds} second${seconds === 1 ? "" : "s"}. Nothing was changed; try again when it is done.`,
  );
}

export function createApi(ctx: AppContext): Api {
  async function run<C extends Channel>(channel: C, input: unknown): Promise<ApiResult<RequestOutput<C>>> {
    const parsed = inputSchemas[channel].safeParse(input ?? {});
    if (!parsed.success) {
      return {
        ok: false,
        error: { code: "invalid_input", message: `${channel}: ${describeInputError(parsed.error)}` },
      };
    }
    // Background search indexing holds its slices while requests come (search-indexer.ts).
    ctx.searchIndexer?.noteRequest();
    try {
      // A write waits (asynchronously) while the runner holds the library's write lock for long.
      if (!ctx.writes.open && LIBRARY_WRITES.has(channel)) await ctx.writes.passed();
      // So does one while another process (the CLI, a second app) holds it, up to a limit.
      if (LIBRARY_WRITES.has(channel)) await untilLibraryWritable(ctx);
      assertLibraryInPlace(ctx.db, ctx.libraryFile);
      const handler = handlers[channel];
      const value = await handler(parsed.data, ctx);
      return { ok: true, value };
    } catch (error) {
      const failure = toApiError(error);
      // A text too long for a string (here or on the runner's thread): say which and what instead.
      if (failure.code === "too_large") return { ok: false, error: tooLargeError(channel, parsed.data) };
      return { ok: false, error: failure };
    } finally {
      ctx.searchIndexer?.noteRequest();
    }
  }
  return {
    ctx,
    call: (channel, input) => run(channel, input),
    callUnknown: (channel, input) => {
      if (!isChannel(channel)) {
        return Promise.resolve({
          ok: false,
          error: { code: "not_found", message: `unknown channel: ${channel}` },
        });
      }
      return run(channel, input);
    },
  };
}
