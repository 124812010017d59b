import type { ModuleFactory, RunningSandbox } from './core/server';
import { startSandboxServer } from './core/server';
import { PbxSandbox, pbxModule } from './pbx/module';

/** Every API the sandbox serves, on one port under the spec's own prefixes. */
export const MODULES: ModuleFactory[] = [pbxModule];

export interface Sandbox extends RunningSandbox {
	pbx: PbxSandbox;
}

export async function startSandbox(options: { port?: number; host?: string } = {}): Promise<Sandbox> {
	const running = await startSandboxServer(MODULES, options);
	return Object.assign(running, {
		pbx: running.modules.pbx as PbxSandbox,
	});
}
