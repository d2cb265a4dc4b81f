#!/usr/bin/env node
// `npx clarion ...`: environments, API keys and workflows of a local or deployed Clarion, through its API.
import { main } from "../scripts/cli/main.mjs";

process.exitCode = await main(process.argv.slice(2));
