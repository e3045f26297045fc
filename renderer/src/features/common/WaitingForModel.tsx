/**
 * The line a running job shows while the model has sent nothing yet: how long it has waited,
 * ticking each second ("Waiting for the model's first token… 42 s"), so that a model that hangs
 * is seen to, and can be cancelled or left to its timeout (model.timeoutSeconds). After a failed
 * request (`retry`): the time left before it is sent again, then the wait for its first token.
 */
import { remoteWaitingText } from "../../../../core/compaction/summary-writer.ts";
import { useNow } from "./use-now.ts";

export function waitingText(seconds: number): string {
  return `Waiting for the model's first token… ${seconds} s`;
}

/**
 * `since`: when the request was (or, after a failure, will be) sent, as Date.now() ms; `remote`:
 * the remote summary endpoint is waited for, not a model.
 */
export function WaitingForModel({
  since,
  retry,
  remote = false,
}: {
  since: number;
  retry?: string | undefined;
  remote?: boolean;
}) {
  const now = Math.max(useNow(), Date.now());
  const seconds = Math.max(0, Math.floor((now - since) / 1000));
  const waited = remote ? remoteWaitingText(seconds) : waitingText(seconds);
  let text = waited;
  if (retry !== undefined) {
    text = now < since ? `${retry}; retrying in ${Math.ceil((since - now) / 1000)} s…` : `${retry}; sent again. ${waited}`;
  }
  return <span data-testid="waiting-for-model">{text}</span>;
}
