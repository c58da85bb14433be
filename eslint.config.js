// typescript-eslint with type-aware rules over the whole tree. Layout is Prettier's job
// (.prettierrc.json); this config only holds rules about correctness.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "coverage/", ".data/", "src/generated/", "test/fixtures/", "helm/"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: {
        projectService: { allowDefaultProject: [".ci/*.ts"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A leading underscore marks a value left unused on purpose (a destructured field dropped).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
      // Service methods are async to honour their Promise-returning interfaces (a throw becomes a
      // rejection) whether or not they await today.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // Tests read JSON bodies (typed any) to assert on them; the unsafe-any rules would only add casts.
    files: ["test/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  { files: ["**/*.js", "**/*.mjs"], ...tseslint.configs.disableTypeChecked },
  // The pages' script runs in the browser as a classic script, not in Node as a module.
  { files: ["src/web/assets/*.js"], languageOptions: { globals: globals.browser, sourceType: "script" } },
);
