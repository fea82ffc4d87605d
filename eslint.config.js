// Lint rules for hnsim. Determinism: randomness and wall time live in src/core only.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const determinism = {
  'no-restricted-properties': [
    'error',
    { object: 'Math', property: 'random', message: 'Use the seeded Rng from src/core (determinism).' },
    { object: 'Date', property: 'now', message: 'Use the simulated Clock from src/core (determinism).' },
  ],
  'no-restricted-syntax': [
    'error',
    {
      selector: "NewExpression[callee.name='Date'][arguments.length=0]",
      message: 'Use the simulated Clock.',
    },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // no rule here reads JSDoc: the parser skips it (about a tenth of the lint's time; issue 15)
    languageOptions: {
      globals: { console: 'readonly', process: 'readonly' },
      parserOptions: { jsDocParsingMode: 'none' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      ...determinism,
    },
  },
  { files: ['src/core/**'], rules: { 'no-restricted-properties': 'off', 'no-restricted-syntax': 'off' } },
);
