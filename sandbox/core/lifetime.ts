import { setMaxListeners } from 'node:events';

/**
 * The controller a module aborts when it resets or closes. Every pending delivery or wait listens
 * to its signal, so a load test has hundreds at once: that is expected, not a listener leak.
 */
export function lifetimeController(): AbortController {
	const controller = new AbortController();
	setMaxListeners(0, controller.signal);
	return controller;
}
