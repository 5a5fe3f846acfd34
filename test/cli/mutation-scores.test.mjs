// The mutation gate's per-folder scores (test/mutation/scores.mjs, docs/testing.md, "Mutation testing"):
// which files count for a folder, how a score is made, and when the gate fails.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mergeReports } from "../mutation/merge-baselines.mjs";
import { folderScores, globMatcher, scoreTable } from "../mutation/scores.mjs";

const mutants = (statuses) => ({ mutants: statuses.map((status) => ({ status })) });

describe("globMatcher", () => {
  it("matches ** across folders and * within one name", () => {
    const all = globMatcher("src/isolate/**/*.ts");
    assert.equal(all("src/isolate/a.ts"), true);
    assert.equal(all("src/isolate/x/y/a.ts"), true);
    assert.equal(all("src/edgeX/a.ts"), false);
    assert.equal(all("src/isolate/a.tsx"), false);
    const one = globMatcher("src/queue/*.ts");
    assert.equal(one("src/queue/policy.ts"), true);
    assert.equal(one("src/queue/x/policy.ts"), false);
    assert.equal(globMatcher("src/a.ts")("src/aXts"), false);
  });
});

describe("folderScores", () => {
  const files = {
    "src/a/one.ts": mutants(["Killed", "Killed", "Timeout", "Survived", "NoCoverage", "CompileError", "Ignored"]),
    "src/a/two.ts": mutants(["Killed", "Survived"]),
    "src/b/three.ts": mutants(["Killed"]),
  };

  it("counts killed and timed-out mutants over all valid ones, per folder", () => {
    const [a, b, none] = folderScores(files, [
      { name: "a", mutate: ["src/a/**/*.ts"], least: 85 },
      { name: "b", mutate: ["src/b/three.ts"], least: 85 },
      { name: "none", mutate: ["src/c/*.ts"], least: 85 },
    ]);
    assert.deepEqual(a, { name: "a", least: 85, mutants: 7, detected: 4, survived: 2, noCoverage: 1, score: (100 * 4) / 7 });
    assert.deepEqual(b, { name: "b", least: 85, mutants: 1, detected: 1, survived: 0, noCoverage: 0, score: 100 });
    assert.equal(none.mutants, 0);
    assert.equal(none.score, 0);
  });

  it("fails the gate for a folder under its least, or one whose globs matched nothing", () => {
    const row = (name, score, count = 10) => ({ name, least: 85, mutants: count, detected: 0, survived: 0, noCoverage: 0, score });
    assert.equal(scoreTable([row("x", 85)]).passed, true);
    assert.equal(scoreTable([row("x", 84.99)]).passed, false);
    assert.equal(scoreTable([row("x", 100, 0)]).passed, false);
    const { text } = scoreTable([row("x", 90), row("y", 80)]);
    assert.match(text, /^x\s+10 .* 90\.00 %\s+85 % ok$/m);
    assert.match(text, /^y\s+10 .* 80\.00 %\s+85 % BELOW$/m);
  });
});

describe("mergeReports (the gate baseline from per-scope runs)", () => {
  const test = (id, name) => ({ id, name, location: { start: { line: 1, column: 1 } } });
  // Two runs that numbered the same tests differently: "t.ts" "b" is 1 in the first and 0 in the second.
  const first = {
    schemaVersion: "2",
    files: { "src/a.ts": { source: "a", mutants: [{ id: "m", status: "Killed", coveredBy: ["0", "1"], killedBy: ["1"] }] } },
    testFiles: { "t.ts": { source: "t", tests: [test("0", "a"), test("1", "b")] } },
  };
  const second = {
    schemaVersion: "2",
    files: { "src/b.ts": { source: "b", mutants: [{ id: "n", status: "Survived", coveredBy: ["0", "2", "9"] }] } },
    testFiles: { "t.ts": { source: "t", tests: [test("0", "b")] }, "u.ts": { source: "u", tests: [test("2", "c")] } },
  };

  it("renumbers tests once per file and name, and points every mutant at the renumbered ones", () => {
    const merged = mergeReports([first, second]);
    assert.equal(merged.schemaVersion, "2");
    assert.deepEqual(
      merged.testFiles["t.ts"].tests.map((t) => [t.id, t.name]),
      [
        ["0", "a"],
        ["1", "b"],
      ],
    );
    assert.deepEqual(
      merged.testFiles["u.ts"].tests.map((t) => [t.id, t.name]),
      [["2", "c"]],
    );
    assert.deepEqual(merged.files["src/a.ts"].mutants[0], { id: "m", status: "Killed", coveredBy: ["0", "1"], killedBy: ["1"] });
    // An id the report does not list (9) is dropped rather than pointed at another report's test.
    assert.deepEqual(merged.files["src/b.ts"].mutants[0].coveredBy, ["1", "2"]);
    assert.equal(second.files["src/b.ts"].mutants[0].coveredBy.length, 3);
  });
});
