import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = join(__dirname, '..', '..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];

/** The text outside fenced code blocks and inline code, where Markdown links live. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Every relative link target of a page: [text](target), not web addresses or server paths. */
function relativeLinks(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map(([, target]) => target)
    .filter((target) => !/^([a-z]+:|\/)/i.test(target));
}

const links = pages.flatMap((page) => relativeLinks(readFileSync(join(root, page), 'utf8')).map((target) => [page, target]));

describe('links between README.md and docs/', () => {
  it('finds links to check', () => {
    expect(links.length).toBeGreaterThan(10);
  });

  it.each(links)('%s → %s resolves to a file and heading', (page, target) => {
    const [path, anchor] = target.split('#');
    const file = path ? resolve(dirname(join(root, page)), decodeURI(path)) : join(root, page);

    expect(existsSync(file)).toBe(true);
    if (anchor) expect([...anchors(readFileSync(file, 'utf8'))]).toContain(anchor);
  });
});
