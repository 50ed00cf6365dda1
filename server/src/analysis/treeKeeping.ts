/**
 * Whether a closed file's tree is freed right after its parse or kept
 * through its extraction (moduleTree.ts). Freeing at once saves about a
 * fifteenth of the parse of every file whose extraction reads only the
 * text; a file whose extraction asks the tree for nodes then costs a second
 * parse. Which kind a workspace holds shows in the files read just before:
 * generated or small environment modules almost never ask, larger library
 * modules often do (two in five of the HUD SDK's and Harbor's files, three
 * fifths of their bytes). So the trees are freed while the files of the last few
 * dozen that asked hold less than a twentieth of their bytes, and kept
 * otherwise (bench/index/README.md, "Trees freed at their parse").
 */
export interface TreeKeeping {
  /** Keep the next file's tree through its extraction. */
  keepTrees(): boolean;
  /** An error-free file of `chars` characters was extracted; `asked`: it read nodes of its tree. */
  noteExtracted(asked: boolean, chars: number): void;
}

/** Recent files weigh the most: each one's share of the sums below decays by this much per file after it. */
const DECAY = 1 / 32;
/** A second parse costs a whole parse and freeing at once saves about 0.07 of one: keep above this share. */
const ASKED_SHARE_TO_KEEP = 1 / 20;

/** Files kept before the share is trusted: a second parse of a large module costs more than this many save. */
const FIRST_KEPT = 16;

/** The policy the analyser uses: what share of the recent files' bytes asked their tree. */
export class RecentTreeUse implements TreeKeeping {
  private askedChars = 0;
  private allChars = 0;
  private seen = 0;

  keepTrees(): boolean {
    return this.seen < FIRST_KEPT || this.askedChars > ASKED_SHARE_TO_KEEP * this.allChars;
  }

  noteExtracted(asked: boolean, chars: number): void {
    this.seen++;
    this.askedChars += ((asked ? chars : 0) - this.askedChars) * DECAY;
    this.allChars += (chars - this.allChars) * DECAY;
  }
}
