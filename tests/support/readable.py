"""What "readable" means in the browser tests, as scripts that return a list of problems (empty: fine):
chart text (plotly's and graphviz's SVG text, as drawn, scale included) at 12 px or more, no text cut
short with an ellipsis (a widget label, a metric's label, a tab, a toggle), no table wider than its
frame (a scroll bar hiding columns), no two labels of a chart drawn over each other. Used by
tests/app/test_browser_workbench.py; needs Playwright."""

from __future__ import annotations

#: The smallest chart text allowed, in CSS pixels as drawn (a 12 px font scaled to 0.99 still reads).
MIN_CHART_TEXT_PX = 11.9

SMALL_CHART_TEXT = """(least) => {
    const problems = [];
    const texts = document.querySelectorAll(
        '[data-testid="stPlotlyChart"] svg text, [data-testid="stGraphVizChart"] svg text');
    for (const t of texts) {
        const shown = (t.textContent || '').trim();
        if (!shown) continue;
        const box = t.getBoundingClientRect();
        if (!box.width || !box.height || getComputedStyle(t).visibility === 'hidden') continue;
        const m = t.getScreenCTM();
        if (!m) continue;
        const size = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
        if (size < least) problems.push(shown.slice(0, 40) + ': ' + size.toFixed(1) + ' px');
    }
    return problems;
}"""

CUT_TEXT = """() => {
    const problems = [];
    for (const e of document.querySelectorAll('[data-testid="stMain"] *')) {
        if (!e.offsetParent || !e.clientWidth || !e.textContent.trim()) continue;
        if (getComputedStyle(e).textOverflow !== 'ellipsis') continue;
        if (e.scrollWidth > e.clientWidth + 1) problems.push(e.textContent.trim().slice(0, 60));
    }
    return problems;
}"""

#: Labels of one chart drawn over each other: its tick labels, legend entries and annotations, pairwise.
OVERLAPPING_LABELS = """() => {
    const corners = t => {  // the label's letters (its line box less the air above and below), turned as drawn
        const box = t.getBBox(), m = t.getScreenCTM();
        const top = box.y + 0.2 * box.height, bottom = box.y + 0.8 * box.height, right = box.x + box.width;
        return [[box.x, top], [right, top], [right, bottom], [box.x, bottom]]
            .map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
    };
    const apart = (p, q) => {  // separating axis test of two convex quadrilaterals, 1 px of slack
        for (const poly of [p, q])
            for (let i = 0; i < 4; i++) {
                const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
                const axis = [y1 - y2, x2 - x1], len = Math.hypot(...axis) || 1;
                const proj = pts => pts.map(([x, y]) => (x * axis[0] + y * axis[1]) / len);
                const a = proj(p), b = proj(q);
                if (Math.max(...a) - 1 <= Math.min(...b) || Math.max(...b) - 1 <= Math.min(...a)) return true;
            }
        return false;
    };
    const problems = [];
    for (const chart of document.querySelectorAll('[data-testid="stPlotlyChart"] .js-plotly-plot')) {
        const labels = [...chart.querySelectorAll('.xtick text, .ytick text, .legendtext, .annotation-text')]
            .filter(t => (t.textContent || '').trim() && t.getBoundingClientRect().width)
            .map(t => [t.textContent.trim(), corners(t)]);
        for (let i = 0; i < labels.length; i++)
            for (let j = i + 1; j < labels.length; j++)
                if (!apart(labels[i][1], labels[j][1]))
                    problems.push(labels[i][0].slice(0, 20) + ' / ' + labels[j][0].slice(0, 20));
    }
    return problems;
}"""

#: Streamlit's data frames scroll sideways inside their frame when their columns do not fit.
TABLES_CUT = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
    .filter(frame => frame.offsetParent)
    .map(frame => [frame, frame.querySelector('.dvn-scroller')])
    .filter(([frame, scroller]) => scroller && scroller.scrollWidth > scroller.clientWidth + 2)
    .map(([frame, scroller]) => {
        const before = [...document.querySelectorAll('[data-testid="stMain"] h1, h2, h3, h4, p, label')]
            .filter(e => e.compareDocumentPosition(frame) & Node.DOCUMENT_POSITION_FOLLOWING).pop();
        return 'the table after "' + (before ? before.textContent.trim().slice(0, 50) : '') + '": '
            + scroller.scrollWidth + ' > ' + scroller.clientWidth;
    })"""


def problems(page) -> dict[str, list[str]]:
    """Every readability problem on the page as drawn now, by kind."""
    found = {
        "chart text under 12 px": page.evaluate(SMALL_CHART_TEXT, MIN_CHART_TEXT_PX),
        "text cut short": page.evaluate(CUT_TEXT),
        "table cut": page.evaluate(TABLES_CUT),
        "labels over each other": page.evaluate(OVERLAPPING_LABELS),
    }
    return {kind: items for kind, items in found.items() if items}
