/**
 * Typed event bus of the contract's events. Handlers emit; each transport subscribes once and
 * forwards to its clients (IPC windows, WebSocket clients, CLI ignores them).
 */
import type { EventName, Events } from "../../core/api/contract.ts";

export type EventListener = <E extends EventName>(name: E, payload: Events[E]) => void;

export class EventBus {
  private readonly listeners = new Set<EventListener>();

  emit<E extends EventName>(name: E, payload: Events[E]): void {
    for (const listener of this.listeners) {
      try {
        listener(name, payload);
      } catch (error) {
        // A broken client must not stop the others from hearing the event.
        console.error(`canopy: event listener failed on ${name}: ${String(error)}`);
      }
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
