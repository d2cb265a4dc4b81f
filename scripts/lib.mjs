import { spawn } from "node:child_process";

/** Runs a command with the project's own bin folder (and so its Node 22) first on PATH. */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: options.capture ? ["ignore", "pipe", "inherit"] : "inherit", env: { ...process.env, ...options.env } });
    let out = "";
    child.stdout?.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} ${args.join(" ")} exited with ${code}`))));
  });
}
