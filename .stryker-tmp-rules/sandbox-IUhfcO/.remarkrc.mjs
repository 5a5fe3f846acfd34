// @ts-nocheck
// `npm run lint:docs` (and a check of `npm test`): every relative link and
// heading anchor in README.md, docs/ and bench/README.md must resolve.
// Offline by construction: `repository: false` stops the plugin from asking
// git for a remote, and it never follows http(s) links.
import remarkValidateLinks from "remark-validate-links";

export default {
  plugins: [[remarkValidateLinks, { repository: false, root: "." }]],
};
