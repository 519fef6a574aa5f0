// Drives lib/licensed-app.mjs in a child Node process: one command, one JSON answer; `stop`
// sends a signal (SIGKILL for `kill -9`) and resolves how the process ended.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { project } from './harness.mjs';

const APP = fileURLToPath(new URL('./licensed-app.mjs', import.meta.url));

/** Starts the app with `config` (see licensed-app.mjs) and waits until it is ready. */
export async function startApp(config) {
  const child = spawn(process.execPath, [APP, JSON.stringify(config)], {
    env: { ...process.env, ATTACK_PROJECT: project },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let buffered = '';
  let stderr = '';
  const waiting = [];
  const exit = new Promise((done) => child.on('exit', (code, signal) => done(code ?? signal)));
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      waiting.shift()?.(JSON.parse(line));
    }
  });
  const next = () =>
    new Promise((done, fail) => {
      waiting.push(done);
      exit.then((code) => fail(new Error(`the app exited (${code}): ${stderr}`)));
    });
  await next();
  return {
    send(command) {
      const answer = next();
      child.stdin.write(`${command}\n`);
      return answer;
    },
    stop(signal) {
      child.kill(signal);
      return exit;
    },
  };
}
