/**
 * The second pass of `npm run deps`: the rule `node-tier-needs-no-workerd` of .dependency-cruiser.cjs (a test
 * of the Node tier reaches no cloudflare:* module) on the graph of what runs, type-only imports erased
 * (docs/testing.md, "Tiers"). The first pass keeps them, for the layer rules and cycles.
 */
const { nodeTierRule, options } = require("./.dependency-cruiser.cjs");

module.exports = {
  forbidden: [nodeTierRule],
  options: { ...options, tsPreCompilationDeps: false },
};
