/**
 * A logger whose destination can be replaced once start-up knows more: the redaction of the
 * plugins' declared credential parameters exists only after the plugins are built, yet the key
 * ring, the event service and the plugins themselves took their loggers (and children of them)
 * before. Every logger handed out here follows the root set last; a child is made once per root.
 */
import type { Logger } from '../sdk/contracts.js';

export interface SwitchableLogger extends Logger {
  /** From now on every logger handed out writes through `root` (with its own bindings). */
  use(root: Logger): void;
}

export function switchableLogger(initial: Logger): SwitchableLogger {
  let root = initial;
  function follow(bindings: ReadonlyArray<Record<string, unknown>>): Logger {
    let madeFor: Logger | undefined;
    let target: Logger = root;
    const current = (): Logger => {
      if (madeFor !== root) {
        target = bindings.reduce<Logger>((logger, b) => logger.child(b), root);
        madeFor = root;
      }
      return target;
    };
    return {
      debug: (obj, msg) => current().debug(obj, msg),
      info: (obj, msg) => current().info(obj, msg),
      warn: (obj, msg) => current().warn(obj, msg),
      error: (obj, msg) => current().error(obj, msg),
      child: (b) => follow([...bindings, b]),
    };
  }
  return Object.assign(follow([]), {
    use(next: Logger) {
      root = next;
    },
  });
}
