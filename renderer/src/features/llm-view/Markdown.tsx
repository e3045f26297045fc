/**
 * Renders markdown text as React elements from the element tree markdown.ts builds (never via
 * innerHTML), memoised per text.
 */
import { createElement, memo, type ReactNode, useMemo } from "react";
import { type MdNode, parseMarkdown } from "./markdown.ts";

function toReact(node: MdNode, key: number): ReactNode {
  if (typeof node === "string") return node;
  const children = node.children.length > 0 ? node.children.map(toReact) : undefined;
  return createElement(node.tag, { ...node.attrs, key }, children);
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const nodes = useMemo(() => parseMarkdown(text), [text]);
  return <div className="md">{nodes.map(toReact)}</div>;
});
