/**
 * `npm run sandbox`: the platform stand-in on 127.0.0.1. The first stdout line is one JSON
 * object with the base URLs and demo credentials of every API; readable lines follow.
 */
import { startSandbox } from './index';

async function main(): Promise<void> {
	const port = Number(process.env.SANDBOX_PORT ?? 4010);
	const sandbox = await startSandbox({ port, host: '127.0.0.1' });
	process.stdout.write(`${JSON.stringify(sandbox.info())}\n`);
	process.stdout.write(`Sandbox listening on ${sandbox.url} (admin API under ${sandbox.url}/_sandbox). Ctrl-C stops it.\n`);
	const stop = () => {
		void sandbox.close().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error) => {
	process.stderr.write(`${(error as Error).stack ?? error}\n`);
	process.exit(1);
});
