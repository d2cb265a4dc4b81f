/** A top-level page: built once per API key, then told which item the address selects. */
export interface View {
  root: HTMLElement;
  show(param: string | undefined): void;
}
