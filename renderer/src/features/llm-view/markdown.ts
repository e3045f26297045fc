/**
 * Markdown for the LLM view: `marked` only tokenizes, and the tokens become a plain element tree
 * (tag, attributes, children, text) that Markdown.tsx turns into React elements. No HTML string
 * ever reaches the DOM, so nothing in a message can inject markup or script: raw HTML in a
 * message (`<summary>`, `<system-reminder>`, `<file …>`, or an attack) is shown as the literal
 * text the model receives, as is a link reference definition (`[1]: https://…`, which markdown
 * would render as nothing). Links are live only for http(s) and mailto; markdown images are never
 * loaded (a placeholder names them). No React or DOM here, so it is tested in Node.
 */
import { Lexer, type Token, type Tokens } from "marked";

export interface MdElement {
  tag: string;
  attrs: Record<string, string | number>;
  children: MdNode[];
}
/** Text (always rendered as text, never parsed as HTML) or an element. */
export type MdNode = string | MdElement;

type Attrs = Record<string, string | number | undefined> | null;

function h(tag: string, attrs: Attrs, ...children: (MdNode | MdNode[] | null)[]): MdElement {
  const clean: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(attrs ?? {})) if (value !== undefined) clean[name] = value;
  const flat: MdNode[] = [];
  for (const child of children) {
    if (child === null) continue;
    if (Array.isArray(child)) flat.push(...child);
    else flat.push(child);
  }
  return { tag, attrs: clean, children: flat };
}

const SAFE_HREF = /^(https?:|mailto:)/i;

// `breaks`: model output uses single newlines as line breaks; show them as the author meant.
const lexerOptions = { gfm: true, breaks: true } as const;

export function parseMarkdown(text: string): MdNode[] {
  return blocks(Lexer.lex(text, lexerOptions));
}

function blocks(tokens: readonly Token[]): MdNode[] {
  const out: MdNode[] = [];
  for (const token of tokens) {
    const node = block(token);
    if (node !== null) out.push(node);
  }
  return out;
}

function block(token: Token): MdNode | null {
  switch (token.type) {
    case "space":
      return null;
    case "def":
      // A link reference definition renders nothing in markdown, but the model receives it.
      return h("pre", { className: "md-raw" }, token.raw.replace(/\n+$/, ""));
    case "paragraph":
      return h("p", null, inline((token as Tokens.Paragraph).tokens));
    case "heading": {
      const heading = token as Tokens.Heading;
      // Not <h1>…<h6>: a message's headings are content, not part of the page's outline.
      return h("div", { className: `md-heading md-h${heading.depth}` }, inline(heading.tokens));
    }
    case "code": {
      const code = token as Tokens.Code;
      return h(
        "div",
        { className: "md-code" },
        code.lang ? h("span", { className: "md-code-lang" }, code.lang) : null,
        h("pre", null, h("code", null, code.text)),
      );
    }
    case "blockquote":
      return h("blockquote", null, blocks((token as Tokens.Blockquote).tokens));
    case "hr":
      return h("hr", null);
    case "list": {
      const list = token as Tokens.List;
      const items = list.items.map((item) => listItem(item, list.loose));
      if (!list.ordered) return h("ul", null, items);
      return h(
        "ol",
        { start: typeof list.start === "number" && list.start !== 1 ? list.start : undefined },
        items,
      );
    }
    case "table": {
      const table = token as Tokens.Table;
      const align = (a: Tokens.TableCell["align"]) => (a ? `md-align-${a}` : undefined);
      return h(
        "div",
        { className: "md-table" },
        h(
          "table",
          null,
          h(
            "thead",
            null,
            h(
              "tr",
              null,
              table.header.map((cell) => h("th", { className: align(cell.align) }, inline(cell.tokens))),
            ),
          ),
          h(
            "tbody",
            null,
            table.rows.map((row) =>
              h(
                "tr",
                null,
                row.map((cell) => h("td", { className: align(cell.align) }, inline(cell.tokens))),
              ),
            ),
          ),
        ),
      );
    }
    case "html":
      // Literal, exactly as the model receives it.
      return h("pre", { className: "md-raw" }, (token as Tokens.HTML).text.replace(/\n+$/, ""));
    case "text": {
      const text = token as Tokens.Text;
      return h("p", null, text.tokens ? inline(text.tokens) : text.text);
    }
    default:
      return h("p", null, token.raw);
  }
}

function listItem(item: Tokens.ListItem, loose: boolean): MdNode {
  const content: MdNode[] = [];
  for (const token of item.tokens) {
    if (token.type === "checkbox") {
      content.push(checkbox((token as Tokens.Checkbox).checked));
    } else if (!loose && token.type === "text") {
      // A tight list item holds "text" tokens: inline content without a paragraph around it.
      const text = token as Tokens.Text;
      content.push(h("span", null, text.tokens ? inline(text.tokens) : text.text));
    } else {
      const node = block(token);
      if (node !== null) content.push(node);
    }
  }
  if (item.task && !item.tokens.some((t) => t.type === "checkbox"))
    content.unshift(checkbox(item.checked === true));
  return h("li", { className: item.task ? "md-task" : undefined }, content);
}

function checkbox(checked: boolean): MdNode {
  return h(
    "span",
    { className: "md-check", role: "img", "aria-label": checked ? "done" : "not done" },
    checked ? "☑ " : "☐ ",
  );
}

function inline(tokens: readonly Token[] | undefined): MdNode[] {
  return (tokens ?? []).map(span);
}

function span(token: Token): MdNode {
  switch (token.type) {
    case "text": {
      const text = token as Tokens.Text;
      return text.tokens ? h("span", null, inline(text.tokens)) : text.text;
    }
    case "escape":
      return (token as Tokens.Escape).text;
    case "strong":
      return h("strong", null, inline((token as Tokens.Strong).tokens));
    case "em":
      return h("em", null, inline((token as Tokens.Em).tokens));
    case "del":
      return h("del", null, inline((token as Tokens.Del).tokens));
    case "codespan":
      return h("code", null, (token as Tokens.Codespan).text);
    case "br":
      return h("br", null);
    case "link": {
      const link = token as Tokens.Link;
      const children = inline(link.tokens);
      if (!SAFE_HREF.test(link.href.trim()))
        return h("span", { className: "md-link-inert", title: link.href }, children);
      return h(
        "a",
        { href: link.href, target: "_blank", rel: "noreferrer noopener", title: link.title ?? link.href },
        children,
      );
    }
    case "image": {
      const image = token as Tokens.Image;
      return h("span", { className: "md-image", title: image.href }, `[image: ${image.text || image.href}]`);
    }
    case "html":
      return h("span", { className: "md-raw-inline" }, (token as Tokens.HTML).text);
    case "checkbox":
      return checkbox((token as Tokens.Checkbox).checked);
    default:
      return token.raw;
  }
}

const VOID_TAGS = new Set(["br", "hr"]);

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Serializes the tree as escaped HTML text: for tests and plain-text export, never for innerHTML. */
export function mdToHtmlText(nodes: readonly MdNode[]): string {
  return nodes
    .map((node) => {
      if (typeof node === "string") return escapeText(node);
      const attrs = Object.entries(node.attrs)
        .map(([name, value]) => ` ${name === "className" ? "class" : name}="${escapeText(String(value))}"`)
        .join("");
      if (VOID_TAGS.has(node.tag)) return `<${node.tag}${attrs}/>`;
      return `<${node.tag}${attrs}>${mdToHtmlText(node.children)}</${node.tag}>`;
    })
    .join("");
}
