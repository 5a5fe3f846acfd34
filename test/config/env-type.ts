/**
 * The Env type of src/config.ts against the one `wrangler types` generates
 * from wrangler.toml (worker-configuration.d.ts, kept current by
 * `wrangler types --check` in `npm test`): a type error here when they part.
 * Every binding and `[vars]` value wrangler.toml declares is in Env with a
 * type its value fits, and every field Env requires is declared there;
 * Env's optional fields are what wrangler.toml leaves commented out or to
 * secrets (the queues, ORIGIN_URL, ADMIN_TOKEN, ...).
 */
import type { Env } from "../../src/config.ts";

type Generated = Cloudflare.Env;
type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];

/** Keys wrangler.toml declares that Env lacks, or whose generated type does not fit Env's. */
type Unfit = { [K in keyof Generated]: K extends keyof Env ? (Generated[K] extends Env[K] ? never : K) : K }[keyof Generated];
/** Keys Env requires that wrangler.toml does not declare. */
type Undeclared = Exclude<RequiredKeys<Env>, keyof Generated>;

// Each line fails to compile, naming the keys, when the two types part.
export const everyGeneratedKeyFits: [Unfit] extends [never] ? true : { unfit: Unfit } = true;
export const everyRequiredKeyDeclared: [Undeclared] extends [never] ? true : { undeclared: Undeclared } = true;
