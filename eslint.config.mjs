// ESLint (typescript-eslint's recommended rules) over the product, its tests, migrations and the kit.
// Formatting is Prettier's job (`npm run lint` runs both): no stylistic rules here.
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'data/', 'kit/bench/results/', 'kit/bench/sample-server/', '**/node_modules/', 'templates/'] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore marks a binding kept on purpose (a handler's arity, a skipped element).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      // Control characters are matched on purpose: terminal escapes, NUL in text that cannot be stored.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read the bodies the system under test answers; the assertions, not the types, check them.
    files: ['test/**/*.ts', 'kit/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Configuration files and preloads are CommonJS run by Node itself.
    files: ['**/*.js', '**/*.cjs'],
    ignores: ['src/conformance/report/assets/**'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The conformance report page's browser scripts (classic scripts, inlined into the page; also
    // type-checked by their own tsconfig.json): browser globals, no Node.
    files: ['src/conformance/report/assets/*.js'],
    languageOptions: { sourceType: 'script', globals: globals.browser },
    rules: { 'no-var': 'error', 'prefer-const': 'error' },
  },
  // Last: turns off the rules Prettier's formatting would fight.
  prettier,
);
