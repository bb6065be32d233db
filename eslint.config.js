// ESLint for the browser client (src/maumau/web): `npx eslint src/maumau/web` (.ci/run).
// ES modules in the browser; the service worker is a classic script of its own, which
// the server serves with two constants in front of it (maumau/server/shell.py).

import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    rules: {
      // `const { by, ...rest } = entry`: leaving a key out is the rest's purpose
      "no-unused-vars": ["error", { ignoreRestSiblings: true }],
    },
  },
  {
    files: ["src/maumau/web/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: globals.browser,
    },
  },
  {
    files: ["src/maumau/web/sw.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      globals: { ...globals.serviceworker, VERSION: "readonly", SHELL: "readonly" },
    },
  },
];
