// The manual's shape, checked as files (node:test; the link check itself is
// `npm run lint:docs`, run by `npm test`): the README stays a short front page
// whose table of contents names pages that exist, no relative link leaves the
// repository, and nothing in the repository cites the contract it was built
// from instead of its own docs pages.
//   ./node_modules/.bin/node --test test/cli/docs.test.mjs
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));
const readme = readFileSync(join(repo, "README.md"), "utf8");

// Written in pieces so that this file does not match itself.
const FORBIDDEN = [["SPEC", "md"].join("."), ["..", "shared"].join("/"), ["SPEC", "section"].join(" ")];
const SCANNED = ["README.md", "docs", "src", "tools", "bench", "test"];
const SKIPPED_DIRS = new Set(["node_modules", ".work", "runs", ".wrangler"]);
const TEXT = /\.(md|ts|mts|mjs|cjs|js|json|toml|yaml|yml|lua|txt)$/;

/** Every text file under `roots` (files or folders, relative to `base`). */
function textFiles(base, roots) {
  const found = [];
  const walk = (path) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)) if (!SKIPPED_DIRS.has(name)) walk(join(path, name));
    } else if (TEXT.test(path)) found.push(path);
  };
  for (const root of roots) walk(join(base, root));
  return found;
}

/** `file:line: text` for every line of those files that names a forbidden reference. */
function forbiddenMentions(base, roots) {
  const hits = [];
  for (const file of textFiles(base, roots)) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, index) => {
        if (FORBIDDEN.some((word) => line.includes(word))) hits.push(`${relative(base, file)}:${index + 1}: ${line.trim()}`);
      });
  }
  return hits;
}

/** The link targets of a Markdown text, outside code blocks. */
function linkTargets(markdown) {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "");
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]);
}

/** The part of the README under its "## Documentation" heading. */
function tableOfContents() {
  const start = readme.indexOf("\n## Documentation");
  assert.notEqual(start, -1, 'README.md has no "## Documentation" section');
  const rest = readme.slice(start + 1);
  const end = rest.indexOf("\n## ", 1);
  return end === -1 ? rest : rest.slice(0, end);
}

test("README.md is a front page of at most 300 lines", () => {
  const lines = readme.split("\n").length - (readme.endsWith("\n") ? 1 : 0);
  assert.ok(lines <= 300, `README.md has ${lines} lines; move detail to docs/`);
});

test("every page the README's table of contents lists exists", () => {
  const pages = linkTargets(tableOfContents()).map((target) => target.split("#")[0]);
  assert.ok(pages.length > 0, "the table of contents links no page");
  const missing = pages.filter((page) => !existsSync(join(repo, page)));
  assert.deepEqual(missing, [], `listed but missing: ${missing.join(", ")}`);
});

test("the table of contents covers every topic of the manual", () => {
  const listed = new Set(linkTargets(tableOfContents()).map((target) => target.split("#")[0]));
  const topics = ["rules", "headers", "algorithms", "precount", "envoy", "admin-api", "metrics", "on-limit", "client", "reliability", "operations"];
  const absent = topics.map((name) => `docs/${name}.md`).filter((page) => !listed.has(page));
  assert.deepEqual(absent, [], `not in the table of contents: ${absent.join(", ")}`);
});

test("no relative link in README.md, docs/ or bench/README.md leaves the repository", () => {
  const pages = textFiles(repo, ["README.md", "docs", "bench/README.md"]).filter((file) => file.endsWith(".md"));
  const escaping = [];
  for (const page of pages) {
    for (const target of linkTargets(readFileSync(page, "utf8"))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) continue;
      const path = resolve(dirname(page), decodeURI(target.split("#")[0]));
      if (target.startsWith("/") || relative(repo, path).startsWith("..")) escaping.push(`${relative(repo, page)}: ${target}`);
    }
  }
  assert.deepEqual(escaping, []);
});

test("no file in README.md, docs/, src/, tools/, bench/ or test/ cites a contract outside the repository", () => {
  assert.deepEqual(forbiddenMentions(repo, SCANNED), [], "cite a docs page (docs/<topic>.md) instead");
});

test("the scan finds a planted citation in each form (so the test above can fail)", () => {
  const base = mkdtempSync(join(tmpdir(), "docs-scan-"));
  mkdirSync(join(base, "src"));
  writeFileSync(join(base, "src", "clean.ts"), "// see docs/reliability.md\n");
  for (const [index, word] of FORBIDDEN.entries()) writeFileSync(join(base, "src", `planted-${index}.ts`), `const a = 1;\n// as ${word} says\n`);
  const hits = forbiddenMentions(base, ["src"]);
  assert.equal(hits.length, FORBIDDEN.length);
  for (const [index, word] of FORBIDDEN.entries()) assert.ok(hits.includes(`src/planted-${index}.ts:2: // as ${word} says`), word);
});

/** `file: docs/x.md, "Section"` for every section a source comment cites that its page does not have. */
function unresolvedSections(base) {
  const missing = [];
  for (const file of textFiles(base, ["src"])) {
    // A citation may wrap across comment lines: the comment markers between its parts are dropped.
    const text = readFileSync(file, "utf8").replace(/\n\s*(\*|\/\/)\s*/g, " ");
    for (const [, page, section] of text.matchAll(/(docs\/[a-z0-9/-]+\.md),\s+"([^"]+)"/g)) {
      const path = join(base, page);
      const lines = existsSync(path) ? readFileSync(path, "utf8").split("\n") : [];
      // A heading, or a paragraph's bold or italic title ("**Cheap key scans.**", "- _Giving back._").
      const titles = lines.flatMap((line) => {
        const heading = /^#+\s+(.*)$/.exec(line);
        if (heading) return [heading[1].trim()];
        const title = /^(?:- )?(\*\*|_)(.+?)\.?\1/.exec(line);
        return title ? [title[2].trim()] : [];
      });
      if (!titles.includes(section)) missing.push(`${relative(base, file)}: ${page}, "${section}"`);
    }
  }
  return missing;
}

test('every (docs/x.md, "Section") a source comment cites names a section or paragraph title of that page', () => {
  assert.deepEqual(unresolvedSections(repo), []);
});

test("the section check finds a planted citation of a section that does not exist (so the test above can fail)", () => {
  const base = mkdtempSync(join(tmpdir(), "docs-sections-"));
  mkdirSync(join(base, "src"));
  mkdirSync(join(base, "docs"));
  writeFileSync(join(base, "docs", "page.md"), "# Page\n\n## Real\n\n**Titled.** text\n");
  writeFileSync(join(base, "src", "a.ts"), '// (docs/page.md, "Real") (docs/page.md,\n// "Titled")\n// (docs/page.md, "Missing") (docs/gone.md, "Real")\n');
  assert.deepEqual(unresolvedSections(base), ['src/a.ts: docs/page.md, "Missing"', 'src/a.ts: docs/gone.md, "Real"']);
});
