// Fails when dist/ differs from what the sources build: dist/ is committed and must be current.
import { execFileSync } from 'node:child_process';

try {
  execFileSync('git', ['diff', '--exit-code', '--stat', '--', 'dist'], { stdio: 'inherit' });
  const untracked = execFileSync('git', ['ls-files', '--others', '--exclude-standard', '--', 'dist'], {
    encoding: 'utf8',
  }).trim();
  if (untracked) {
    console.error(
      `dist/ has files that are not committed:\n${untracked}\nRun "npm run build" and commit dist/.`,
    );
    process.exit(1);
  }
} catch {
  console.error('dist/ is not what the sources build. Run "npm run build" and commit dist/.');
  process.exit(1);
}
console.log('dist/ is current');
