// Types of scripts/tiers.mjs, for vitest.config.ts.
export type Tier = "node" | "workerd" | "cli" | "slow" | "dev";
export declare const VITEST_TIERS: Record<"node" | "workerd" | "slow", { include: string[]; exclude: string[] }>;
export declare const NODE_TEST_TIERS: Record<"cli" | "dev", (path: string) => boolean>;
export declare const QUICK_TIERS: Tier[];
export declare const ALL_TIERS: Tier[];
export declare function tiersOf(path: string): Tier[];
export declare function tierOf(path: string): Tier | undefined;
export declare function testFiles(root?: string): string[];
export declare function filesOf(tier: Tier, files?: string[]): string[];
export declare function tierCheck(files?: string[]): { path: string; tiers: Tier[] }[];
