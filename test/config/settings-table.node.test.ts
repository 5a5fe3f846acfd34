/**
 * The settings table (src/config.ts, SETTINGS) is the one list of `[vars]`:
 * docs/operations.md's Configuration table lists exactly its rows, each
 * with the default, the values and the range the code has; the parser
 * reads every row, takes an empty value as unset, and names the variable
 * of a value it refuses; the result is frozen.
 */
import { describe, expect, it } from "vitest";
import advisor from "../../docs/advisor.md?raw";
import operations from "../../docs/operations.md?raw";
import { ConfigError, DEFAULT_SETTINGS, type Env, readSettings, SETTINGS, type SettingRow } from "../../src/config.ts";

const rows = Object.entries(SETTINGS) as [string, SettingRow][];

// A page's settings table between two headings: variable → [values and meaning, default].
function documented(page: string, from: string, to: string): Map<string, [string, string]> {
  const section = page.slice(page.indexOf(from), page.indexOf(to));
  const table = new Map<string, [string, string]>();
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const name = /^`([A-Z_]+)`/.exec(cells[1] ?? "")?.[1];
    if (name !== undefined) table.set(name, [cells[2], cells[3]]);
  }
  return table;
}

function sameAsTheTable(table: Map<string, [string, string]>, row: SettingRow) {
  const [values, fallback] = table.get(row.variable) ?? ["", ""];
  if (row.fallback === undefined) expect(fallback).toMatch(/^unset/);
  else expect(fallback.startsWith(`\`${row.fallback}\``)).toBe(true);
  for (const choice of row.choices ?? []) expect(values).toContain(`\`${choice}\``);
  if (row.range !== undefined) expect(values).toContain(`${row.kind === "whole" ? "a whole number" : "a number"}`);
  if (row.range !== undefined) expect(values).toMatch(new RegExp(`from ${row.range[0]} to ${row.range[1]}\\b`));
  if (row.minLength !== undefined) expect(values).toContain(`at least ${row.minLength} characters`);
}

describe("docs/operations.md lists the settings table as the code has it", () => {
  const table = documented(operations, "## Configuration", "### Jurisdiction");

  it("the same variables, each once", () => {
    expect([...table.keys()].sort()).toEqual(rows.map(([, row]) => row.variable).sort());
  });

  it.each(rows)("%s: its default, values and range", (_field, row) => sameAsTheTable(table, row));

  it("docs/advisor.md's table of the sample's settings says the same", () => {
    const sample = documented(advisor, "### Settings", "### The export");
    expect([...sample.keys()]).toEqual(["SAMPLE_KEY_RATE", "SAMPLE_MAX_ROWS", "SAMPLE_RETENTION_HOURS"]);
    for (const [, row] of rows) if (sample.has(row.variable)) sameAsTheTable(sample, row);
  });
});

describe("readSettings, by the table", () => {
  it("an empty env is every default, frozen; a row without one is unset", () => {
    const settings = readSettings({});
    expect(Object.isFrozen(settings)).toBe(true);
    expect(settings).toEqual(DEFAULT_SETTINGS);
    for (const [field, row] of rows) expect((settings as Record<string, unknown>)[field]).toEqual(row.fallback);
  });

  it("an empty or blank value counts as unset, for every row", () => {
    const blank = Object.fromEntries(rows.map(([, row]) => [row.variable, "  "])) as Partial<Env>;
    expect(readSettings(blank)).toEqual(DEFAULT_SETTINGS);
  });

  it("reads each kind: words in any case, numbers in their range, flags, URLs, secrets as written", () => {
    const settings = readSettings({
      FAILURE_MODE: " Closed ",
      SAMPLE_KEY_RATE: "0.25",
      SAMPLE_RETENTION_HOURS: "2160",
      SHADOW_MODE: "TRUE",
      ORIGIN_URL: "https://api.example.com/v1",
      QUEUE_SECRET: " a secret of thirty-two characters ",
    });
    expect(settings.failureMode).toBe("closed");
    expect(settings.sampleKeyRate).toBe(0.25);
    expect(settings.sampleRetentionHours).toBe(2160);
    expect(settings.shadowMode).toBe(true);
    expect(settings.originUrl?.href).toBe("https://api.example.com/v1");
    expect(settings.queueSecret).toBe(" a secret of thirty-two characters ");
  });

  it("refuses a value its row does not take, naming the variable and what it takes (never a secret's value)", () => {
    const refusal = (vars: Partial<Env>) => {
      try {
        readSettings(vars);
        return "accepted";
      } catch (error) {
        return error instanceof ConfigError ? error.message : String(error);
      }
    };
    expect(refusal({ SAMPLE_KEY_RATE: "2" })).toBe('SAMPLE_KEY_RATE must be a number from 0 to 1, got "2"');
    expect(refusal({ SAMPLE_MAX_ROWS: "1.5" })).toBe('SAMPLE_MAX_ROWS must be a whole number from 0 to 200000, got "1.5"');
    expect(refusal({ DECISION_TIMEOUT_MS: "12ab" })).toBe('DECISION_TIMEOUT_MS must be a whole number of milliseconds from 1 to 600000, got "12ab"');
    expect(refusal({ SHADOW_MODE: "maybe" })).toBe('SHADOW_MODE must be true or false, got "maybe"');
    expect(refusal({ ORIGIN_URL: "ftp://x.example" })).toBe('ORIGIN_URL must be an http or https URL, got "ftp://x.example"');
    expect(refusal({ QUEUE_SECRET: "short-secret" })).toBe("QUEUE_SECRET must be at least 32 characters, got 12");
    expect(refusal({ RATELIMIT_HEADERS: "draft-8" })).toBe('RATELIMIT_HEADERS must be one of "draft-11", "draft-7", "draft-6", "none", got "draft-8"');
  });

  it("a short ADMIN_TOKEN turns the admin API off, saying why, rather than stopping the gateway", () => {
    const settings = readSettings({ ADMIN_TOKEN: "short" });
    expect(settings.adminToken).toBeUndefined();
    expect(settings.adminTokenRefused).toBe("The admin endpoints are off: ADMIN_TOKEN is shorter than 32 characters. Set a longer one (docs/deploy.md).");
    expect(readSettings({ ADMIN_TOKEN: "t".repeat(32) }).adminToken).toBe("t".repeat(32));
  });
});
