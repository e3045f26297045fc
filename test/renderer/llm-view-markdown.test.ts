// The LLM view's markdown: marked tokens become a plain element tree; raw HTML stays literal
// text, unsafe links are inert, markdown images are never loaded.
import { describe, expect, it } from "vitest";
import { type MdNode, mdToHtmlText, parseMarkdown } from "../../renderer/src/features/llm-view/markdown.ts";

const html = (text: string) => mdToHtmlText(parseMarkdown(text));

function tags(nodes: readonly MdNode[]): string[] {
  return nodes.flatMap((node) => (typeof node === "string" ? [] : [node.tag, ...tags(node.children)]));
}

describe("parseMarkdown", () => {
  it("renders paragraphs, emphasis, code spans, lists and headings", () => {
    const out = html("# Title\n\nSome **bold** and *em* and `code <x>`.\n\n- one\n- two\n\n3. third");
    expect(out).toContain('<div class="md-heading md-h1">Title</div>');
    expect(out).toContain("<strong>bold</strong>");
    expect(out).toContain("<em>em</em>");
    expect(out).toContain("<code>code &lt;x&gt;</code>");
    expect(out).toContain("<ul><li><span>one</span></li><li><span>two</span></li></ul>");
    expect(out).toContain('<ol start="3">');
  });

  it("renders fenced code as a code block with its language", () => {
    expect(html("```ts\nconst a = 1 < 2;\n```")).toBe(
      '<div class="md-code"><span class="md-code-lang">ts</span><pre><code>const a = 1 &lt; 2;</code></pre></div>',
    );
  });

  it("keeps raw HTML as text nodes, never as elements", () => {
    const nodes = parseMarkdown(
      '<script>alert(1)</script>\n\nhi <img src=x onerror="alert(2)"> there\n\n<summary>\nS\n</summary>',
    );
    expect(tags(nodes)).not.toContain("script");
    expect(tags(nodes)).not.toContain("img");
    const out = mdToHtmlText(nodes);
    expect(out).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(out).toContain("&lt;img src=x onerror=&quot;alert(2)&quot;&gt;");
    expect(out).toContain("&lt;summary&gt;\nS\n&lt;/summary&gt;");
  });

  it("keeps links live only for http(s) and mailto, and never loads images", () => {
    const out = html(
      "[ok](https://example.com/a) [bad](javascript:alert(1)) ![pic](https://example.com/p.png)",
    );
    expect(out).toContain('<a href="https://example.com/a" target="_blank" rel="noreferrer noopener"');
    expect(out).not.toContain('href="javascript');
    expect(out).toContain('<span class="md-link-inert" title="javascript:alert(1)">bad</span>');
    expect(out).toContain("[image: pic]");
    expect(tags(parseMarkdown("![pic](https://example.com/p.png)"))).not.toContain("img");
  });

  it("shows single newlines as line breaks, entities as typed, and task lists as marks", () => {
    expect(html("a\nb")).toBe("<p>a<br/>b</p>");
    expect(html("x &amp; y")).toBe("<p>x &amp;amp; y</p>");
    const tasks = html("- [x] done\n- [ ] todo");
    expect(tasks).toContain('aria-label="done"');
    expect(tasks).toContain('aria-label="not done"');
  });

  it("shows a link reference definition as the line the model receives, not nothing", () => {
    const out = html('See [the docs][1].\n\n[1]: https://example.com/docs "Docs"\n\n[ref]: /local/path');
    expect(out).toContain("[1]: https://example.com/docs &quot;Docs&quot;");
    expect(out).toContain("[ref]: /local/path");
    // The reference still links where its definition points.
    expect(out).toContain('<a href="https://example.com/docs"');
  });

  it("renders tables with alignment classes", () => {
    const out = html("| a | b |\n|:-|-:|\n| 1 | 2 |");
    expect(out).toContain('<th class="md-align-left">a</th>');
    expect(out).toContain('<td class="md-align-right">2</td>');
  });
});
