// Walks a Snakemake report the way a reader does, in the browser (tests/report_browser.py appends it to a copy of
// report.html): the front page, then each category of the menu, its subcategories and every result, whose
// caption it reads and whose figure or table it shows. What it saw goes, as JSON, into <pre id="report-check">.
(async function () {
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    const check = window.__reportCheck;
    const nav = () => document.querySelector("#app nav");
    const navLinks = () => Array.from(nav().querySelectorAll("a")).map((a) => [a.textContent.trim(), a]);
    async function click(label) {
        const found = navLinks().find(([text]) => text === label);
        if (!found) {
            check.errors.push(`no menu entry named ${JSON.stringify(label)} among ` +
                JSON.stringify(navLinks().map(([text]) => text)));
            return false;
        }
        found[1].click();
        await sleep(200);
        return true;
    }
    function decoded(dataUri) {
        const base64 = dataUri.slice(dataUri.indexOf(",") + 1);
        return new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
    }
    async function shown(path) {
        // what the result's eye button shows: a figure as an <img>, a table in an <iframe>
        const result = results[path];
        const kind = result.mime_type.startsWith("image/") ? "img" : "html";
        app.setView({ content: kind, contentPath: result.data_uri, resultPath: path });
        await sleep(200);
        if (kind === "img") {
            const img = Array.from(document.querySelectorAll("#app img")).find((i) => i.src === result.data_uri);
            for (let i = 0; img && !img.complete && i < 50; i++) await sleep(100);
            return { kind, rendered: Boolean(img && img.complete && img.naturalWidth > 0),
                     width: img ? img.naturalWidth : 0 };
        }
        const frame = Array.from(document.querySelectorAll("#app iframe")).find((f) => f.src === result.data_uri);
        const page = new DOMParser().parseFromString(decoded(result.data_uri), "text/html");
        const heading = page.querySelector("h3");
        return { kind, rendered: Boolean(frame), title: heading ? heading.textContent : null,
                 text: page.body.textContent };
    }
    try {
        await sleep(500);
        check.front = document.querySelector("#app").innerText;
        check.menu = navLinks().map(([text]) => text);
        // the front page's links to the categories, each followed: {its text: the menu it opened}
        check.frontLinks = {};
        const links = Array.from(document.querySelectorAll("#app a[href^='javascript:app.showCategory']"))
            .filter((a) => !nav().contains(a));
        for (const link of links) {
            link.click();
            await sleep(200);
            check.frontLinks[link.textContent] = nav().innerText;
            app.setView({ navbarMode: "menu" });
            await sleep(200);
        }
        for (const category of Object.keys(categories).sort()) {
            const seen = { subcategories: {}, results: {} };
            check.categories[category] = seen;
            if (!(await click(category))) continue;  // from the menu, as a reader opens it
            const subcategories = Object.keys(categories[category]).sort();
            for (const subcategory of subcategories) {
                // back to the category (the report opens a category of one subcategory at its results)
                app.showCategory(category);
                await sleep(200);
                if (subcategories.length > 1 && !(await click(subcategory))) continue;
                seen.subcategories[subcategory] = nav().innerText;
                for (const path of categories[category][subcategory]) {
                    app.showResultInfo(path);
                    await sleep(200);
                    const caption = nav().querySelector(".prose");
                    seen.results[path] = { subcategory, name: results[path].name,
                                           caption: caption ? caption.innerText : null,
                                           captionHtml: caption ? caption.innerHTML : null,
                                           ...(await shown(path)) };
                }
            }
            app.setView({ navbarMode: "menu", content: "rulegraph" });
            await sleep(200);
        }
    } catch (error) {
        check.errors.push(`the walk stopped: ${error && error.stack ? error.stack : error}`);
    }
    check.done = true;
    const out = document.createElement("pre");
    out.id = "report-check";
    out.textContent = JSON.stringify(check);
    document.body.appendChild(out);
})();
