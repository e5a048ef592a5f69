// The page's tabs (Plan, Compare, Model): one pane shown at a time, the tab's view drawn when it
// becomes visible (a hidden canvas has no size), and the address told which tab is open.
import type { Tab } from '../share';
import { $ } from '../dom';

export const TABS: Tab[] = ['plan', 'compare', 'model'];

export class Tabs {
  private current: Tab = 'plan';
  /** Called after a tab is shown: draw its view, sync the address. */
  onShow: (tab: Tab) => void = () => {};

  constructor() {
    for (const tab of TABS) $(`tab-${tab}`).addEventListener('click', () => this.show(tab));
  }

  get open(): Tab {
    return this.current;
  }

  show(tab: Tab) {
    this.current = tab;
    for (const name of TABS) {
      $(`tab-${name}`).setAttribute('aria-selected', String(tab === name));
      $(`${name}-pane`).hidden = tab !== name;
    }
    this.onShow(tab);
  }
}
