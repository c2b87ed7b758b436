/** The version `interlock --version` prints: package.json's (test/cli/help.test.ts holds the two equal). */
export const VERSION = '0.1.0';
