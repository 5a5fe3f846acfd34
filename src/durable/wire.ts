/** The RPC wire format is a stored format: it lives in src/stored/wire.ts (docs/stored-formats.md). */
export * from "../stored/wire.ts";
