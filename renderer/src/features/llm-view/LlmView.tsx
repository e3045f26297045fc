/**
 * The LLM view: exactly the messages the model receives at the selected leaf, in order, as plain
 * text, each tagged with its role, source entry and token estimate.
 */
import { useCanopy } from "../../store/index.ts";
import { messageHeading, messageText } from "../../../../core/session/message-text.ts";

export function LlmView() {
  const context = useCanopy((state) => state.context);
  const loading = useCanopy((state) => state.contextLoading);
  const error = useCanopy((state) => state.contextError);
  const selected = useCanopy((state) => state.selectedSessionId);

  if (!selected) return <p className="empty">Select a session to see what the model receives.</p>;
  if (error) return <p className="error" role="alert">Could not build the LLM view: {error}</p>;
  if (!context) return <p className="empty">{loading ? "Loading…" : "No context."}</p>;

  return (
    <section
      className="llm-view"
      data-testid="llm-view"
      data-message-count={context.messages.length}
      aria-label="What the model receives"
    >
      <header className="llm-view-header">
        <strong>{context.messages.length} messages</strong>
        <span>~{context.estimatedTokens.toLocaleString()} tokens estimated</span>
        {context.measuredTokens !== null && <span>{context.measuredTokens.toLocaleString()} measured</span>}
        <span>leaf {context.leafId ?? "(none)"}</span>
        {context.compactionId && (
          <span>
            compaction {context.compactionId}, first kept {context.firstKeptEntryId ?? "(not on path)"}
          </span>
        )}
      </header>
      {context.messages.length === 0 && <p className="empty">The model receives no messages at this leaf.</p>}
      <ol className="messages">
        {context.messages.map((message, index) => (
          <li
            // biome-ignore lint/suspicious/noArrayIndexKey: the list is rebuilt whole; order is the identity
            key={index}
            className={`message role-${message.role}`}
            data-role={message.role}
            data-entry-id={context.messageEntryIds[index] ?? ""}
          >
            <div className="message-meta">
              <span className="role">{messageHeading(message)}</span>
              <span className="entry">{context.messageEntryIds[index] ?? ""}</span>
              <span className="tokens">~{context.messageTokens[index] ?? 0} tok</span>
            </div>
            <pre className="message-body">{messageText(message)}</pre>
          </li>
        ))}
      </ol>
    </section>
  );
}
