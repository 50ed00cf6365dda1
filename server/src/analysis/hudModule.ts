/**
 * Whether an import's module is the `hud` package or one of its
 * submodules (`hud.graders`), and not a package that only starts with the
 * same letters (`hudson`). Extraction, linking and hover all ask it.
 */
export function isHudModule(module: string): boolean {
  return module === 'hud' || module.startsWith('hud.');
}
