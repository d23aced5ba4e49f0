/**
 * @deprecated Import `defineConfig` from `svc/config`, which gives the config its types. This one
 * only keeps configs written against the older SDK loading; it checks nothing.
 */
export function defineConfig<C extends object>(config: C): C {
  return config;
}
