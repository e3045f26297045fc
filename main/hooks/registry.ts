/**
 * Hook registry and dispatch (SPEC §9.1): handlers run one after another in registration order;
 * for "before" events each truthy result replaces the running one and `cancel` stops at once;
 * for `session.compacting` the last truthy result wins; a handler that throws is reported and
 * skipped as if it had returned nothing. Once the run is aborted, a handler that has not answered
 * is no longer waited for (its late answer is ignored), so a hung hook cannot hold a cancel.
 */
import type { AbortSignalLike } from "../../core/compaction/types.ts";
import type { HookError, HookEventName, HookEvents, HookHandler } from "./types.ts";

/** A handler's answer, or undefined as soon as `signal` aborts (a late answer or error is dropped). */
function answerUnlessAborted<T>(answer: T | Promise<T>, signal: AbortSignalLike | undefined): Promise<T | undefined> {
  if (!signal || !(answer instanceof Promise)) return Promise.resolve(answer);
  if (signal.aborted) {
    answer.catch(() => undefined);
    return Promise.resolve(undefined);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener("abort", onAbort);
    answer.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

interface Registration {
  extension: string;
  event: HookEventName;
  handler: HookHandler<HookEventName>;
}

export class HookRegistry {
  private readonly registrations: Registration[] = [];
  private readonly errorListeners = new Set<(error: HookError) => void>();
  /** Errors of handlers and of hook modules that failed to load, newest last. */
  readonly errors: HookError[] = [];

  register<E extends HookEventName>(extension: string, event: E, handler: HookHandler<E>): () => void {
    const registration = { extension, event, handler: handler as unknown as HookHandler<HookEventName> };
    this.registrations.push(registration);
    return () => {
      const at = this.registrations.indexOf(registration);
      if (at >= 0) this.registrations.splice(at, 1);
    };
  }

  onError(listener: (error: HookError) => void): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  report(error: HookError): void {
    this.errors.push(error);
    for (const listener of this.errorListeners) listener(error);
  }

  list(): { extension: string; event: HookEventName }[] {
    return this.registrations.map(({ extension, event }) => ({ extension, event }));
  }

  has(event: HookEventName): boolean {
    return this.registrations.some((registration) => registration.event === event);
  }

  /** The modules (file names) with handlers for `event`, in registration order, each once. */
  filesFor(event: HookEventName): string[] {
    return [...new Set(this.registrations.filter((r) => r.event === event).map((r) => r.extension))];
  }

  private async call<E extends HookEventName>(
    registration: Registration,
    payload: HookEvents[E]["payload"],
    signal?: AbortSignalLike,
  ): Promise<HookEvents[E]["result"] | undefined> {
    try {
      const answer = registration.handler(payload as never);
      return (await answerUnlessAborted(answer, signal)) as HookEvents[E]["result"];
    } catch (error) {
      this.report({
        extension: registration.extension,
        event: registration.event,
        message: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
  }

  /** `session_before_compact` / `session_before_tree`: replace-on-truthy, stop on cancel. */
  async runBefore<E extends "session_before_compact" | "session_before_tree">(
    event: E,
    payload: HookEvents[E]["payload"],
  ): Promise<HookEvents[E]["result"] | undefined> {
    let result: HookEvents[E]["result"] | undefined;
    for (const registration of this.registrations.filter((r) => r.event === event)) {
      const value = await this.call<E>(registration, payload, payload.signal);
      if (value) {
        result = value;
        if ((value as { cancel?: boolean }).cancel === true) return result;
      }
    }
    return result;
  }

  /** `session.compacting`: the last truthy result wins. */
  async runCompacting(
    payload: HookEvents["session.compacting"]["payload"],
    signal?: AbortSignalLike,
  ): Promise<HookEvents["session.compacting"]["result"] | undefined> {
    let result: HookEvents["session.compacting"]["result"] | undefined;
    for (const registration of this.registrations.filter((r) => r.event === "session.compacting")) {
      const value = await this.call<"session.compacting">(registration, payload, signal);
      if (value) result = value;
    }
    return result;
  }

  /** Notifications (`session_compact`, `session_tree`): every handler, results ignored. */
  async notify<E extends "session_compact" | "session_tree">(
    event: E,
    payload: HookEvents[E]["payload"],
    signal?: AbortSignalLike,
  ): Promise<void> {
    for (const registration of this.registrations.filter((r) => r.event === event)) {
      await this.call<E>(registration, payload, signal);
    }
  }
}
