// `npm run lint:docs`: every relative link and anchor in README.md, CONTRIBUTING.md and docs/ resolves.
// Offline: remark-validate-links checks files and headings in this checkout only (no repository host).
import remarkValidateLinks from "remark-validate-links";

export default { plugins: [[remarkValidateLinks, { repository: false }]] };
