/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: {
    // Type errors are reported by `npm run typecheck`, not by the test run.
    '^.+\\.tsx?$': ['ts-jest', { diagnostics: false }],
  },
};
