/**
 * Everything `npm run cluster` starts is undone from one file of shell commands in its run
 * directory, run last line first: by this process when it ends (normally, on an error, on
 * SIGINT/SIGTERM), and otherwise by a detached guard that waits for this process to disappear
 * (SIGKILL included) and then runs the same file and deletes the directory.
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Teardown {
  /** The run's directory (data directories, sockets, configuration, logs). */
  dir: string;
  /** Adds a shell command undoing something just done; commands run in reverse order. */
  undo(command: string): void;
  /** Runs every undo command once and deletes the directory. */
  run(): void;
}

const GUARD = `
parent=$1; dir=$2
while kill -0 "$parent" 2>/dev/null; do sleep 1; done
[ -f "$dir/undo.sh" ] && tac "$dir/undo.sh" | bash >/dev/null 2>&1
rm -rf "$dir"
`;

export function startTeardown(): Teardown {
  const dir = mkdtempSync(join(tmpdir(), 'lt-cluster-'));
  // Traversable by the postgres user, whose data directories are inside.
  chmodSync(dir, 0o711);
  const undoFile = join(dir, 'undo.sh');
  writeFileSync(undoFile, '');
  const guard = spawn('bash', ['-c', GUARD, 'guard', String(process.pid), dir], { detached: true, stdio: 'ignore' });
  guard.unref();
  let done = false;
  const teardown: Teardown = {
    dir,
    undo: (command) => appendFileSync(undoFile, `${command}\n`),
    run() {
      if (done) return;
      done = true;
      // CLUSTER_KEEP_LOGS=1: the logs outlive the run, in a directory named on stderr.
      if (process.env.CLUSTER_KEEP_LOGS === '1') {
        const kept = `${dir}-logs`;
        spawnSync('bash', ['-c', `mkdir -p ${kept} && cp ${dir}/*.log ${dir}/pg/*.log ${dir}/haproxy.cfg ${kept}/ 2>/dev/null`]);
        console.error(`logs kept in ${kept}`);
      }
      if (existsSync(undoFile)) spawnSync('bash', ['-c', `tac ${JSON.stringify(undoFile)} | bash`], { stdio: 'ignore', timeout: 60_000 });
      rmSync(dir, { recursive: true, force: true });
      // The guard has nothing left to do once the directory is gone.
      if (guard.pid) process.kill(guard.pid, 'SIGKILL');
    },
  };
  process.once('exit', () => teardown.run());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping everything this run started`);
      teardown.run();
      process.exit(130);
    });
  }
  return teardown;
}
