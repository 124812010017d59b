import { ConvaiSandbox, convaiModule } from './agent/module';
import { CrmSandbox, crmModule } from './crm/module';
import type { ModuleFactory, RunningSandbox } from './core/server';
import { startSandboxServer } from './core/server';
import { IntelligenceSandbox, intelligenceModule } from './intelligence/module';
import { LlmSandbox, llmModule } from './llm/module';
import { PbxSandbox, pbxModule } from './pbx/module';
import { WholesaleSandbox, wholesaleModule } from './wholesale/module';

/** Every API the sandbox serves, on one port under the spec's own prefixes. */
export const MODULES: ModuleFactory[] = [pbxModule, convaiModule, intelligenceModule, wholesaleModule, llmModule, crmModule];

export interface Sandbox extends RunningSandbox {
	pbx: PbxSandbox;
	convai: ConvaiSandbox;
	intelligence: IntelligenceSandbox;
	wholesale: WholesaleSandbox;
	/** The scripted model (an OpenAI-compatible endpoint for the AI Agent tests). */
	llm: LlmSandbox;
	/** A CRM stand-in that keeps notes (the recipes that log to a CRM). */
	crm: CrmSandbox;
}

export async function startSandbox(options: { port?: number; host?: string } = {}): Promise<Sandbox> {
	const running = await startSandboxServer(MODULES, options);
	return Object.assign(running, {
		pbx: running.modules.pbx as PbxSandbox,
		convai: running.modules.convai as ConvaiSandbox,
		intelligence: running.modules.intelligence as IntelligenceSandbox,
		wholesale: running.modules.wholesale as WholesaleSandbox,
		llm: running.modules.llm as LlmSandbox,
		crm: running.modules.crm as CrmSandbox,
	});
}
