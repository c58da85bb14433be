// Types for scripts/copy-assets.mjs (plain JavaScript so the build runs it with Node alone).
export declare const COPIED: readonly string[];
export declare function copyAssets(root?: URL): void;
