#!/usr/bin/env python3
"""Generate the embedded demo data set of this project (resources/demo/).

All text below was written for this project from general knowledge; nothing is copied from MS MARCO,
OpenReview, arXiv or any other source. Standard library only and fully deterministic: running

    python resources/demo/make_demo.py [OUT_DIR]

(re)writes byte-identical files into OUT_DIR (default: the folder of this script).
"""

# The knowledge base below is prose, one sentence per string; its long lines are left unwrapped.
# ruff: noqa: E501

from __future__ import annotations

import hashlib
import json
import random
import sys
import unicodedata
from pathlib import Path

# ---------------------------------------------------------------------------------------------
# Knowledge base for the MS MARCO-format part. One topic: (name, kind, background sentences,
# facts). A fact is (query, short answer, phrasing 1, phrasing 2); the answer sentence doubles as
# a third phrasing. Background sentences are about the topic but answer none of the queries.
# ---------------------------------------------------------------------------------------------

TOPICS = [
    ("Lima", "city", [
        "Lima sits on the central coast of Peru, on a desert strip between the Andes and the Pacific Ocean.",
        "The historic centre of Lima is a UNESCO World Heritage Site known for its carved wooden balconies.",
        "The port of Callao, next to Lima, handles most of the country's sea trade.",
        "Lima is famous for its food scene, and ceviche made with raw fish cured in lime juice is the signature dish.",
        "Miraflores and Barranco are popular districts with parks and walkways on the cliffs above the ocean.",
        "A grey coastal fog known locally as garua hangs over the city for much of the southern winter.",
    ], [
        ("what is the capital of peru", "The capital of Peru is Lima.",
         "Lima is the capital and largest city of Peru.",
         "Peru's seat of government, and by far its biggest city, is Lima."),
        ("when was lima founded", "Lima was founded by Francisco Pizarro on 18 January 1535.",
         "The Spanish conquistador Francisco Pizarro founded Lima on January 18, 1535.",
         "Lima dates from 1535, when Francisco Pizarro established it as the City of the Kings."),
        ("population of lima peru", "Metropolitan Lima has roughly 10 million inhabitants.",
         "The Lima metropolitan area is home to about 10 million people, close to a third of all Peruvians.",
         "With around ten million residents in its metro area, Lima is one of the largest cities in South America."),
        ("why does it rarely rain in lima", "It rarely rains in Lima because the cold Humboldt Current keeps the coastal air stable.",
         "Rain is rare in Lima because the cold Humboldt Current cools the air near the coast and stops rain clouds from building.",
         "Lima gets only a few millimetres of rain a year; the cold ocean current offshore keeps the lower air cool and stable."),
        ("what is the main airport in lima", "Lima's main airport is Jorge Chavez International Airport in Callao.",
         "Jorge Chavez International Airport, in neighbouring Callao, is the main international gateway to Lima.",
         "Most international flights to Lima land at Jorge Chavez International Airport, which lies in the port city of Callao."),
    ]),
    ("Lisbon", "city", [
        "Lisbon is the capital of Portugal and lies on the Atlantic coast at the mouth of a wide estuary.",
        "The city is built on seven hills, and steep streets and viewpoints called miradouros are part of daily life.",
        "The Alfama district survived the great earthquake and keeps its medieval street plan.",
        "Pasteis de nata, small custard tarts, are sold in bakeries all over Lisbon.",
        "Belem, west of the centre, is home to the Jeronimos Monastery and the Belem Tower.",
        "Lisbon has a mild climate, with warm dry summers and rainy but rarely cold winters.",
    ], [
        ("what river runs through lisbon", "Lisbon lies on the Tagus River.",
         "Lisbon stands on the north bank of the Tagus, the longest river of the Iberian Peninsula.",
         "The river that flows past Lisbon into the Atlantic is the Tagus, called the Tejo in Portuguese."),
        ("when was the lisbon earthquake", "The Lisbon earthquake struck on 1 November 1755.",
         "The great Lisbon earthquake hit on the morning of November 1, 1755, All Saints' Day, and was followed by a tsunami and fires.",
         "On 1 November 1755 an earthquake, a tsunami and days of fire destroyed much of Lisbon."),
        ("what is the 25 de abril bridge", "The 25 de Abril Bridge is a suspension bridge over the Tagus in Lisbon, opened in 1966.",
         "The 25 de Abril Bridge is a red suspension bridge across the Tagus that opened in 1966 and is often compared with the Golden Gate Bridge.",
         "Opened in 1966, the 25 de Abril suspension bridge links Lisbon with Almada on the south bank of the Tagus."),
        ("what is fado music", "Fado is a traditional Portuguese style of song, often melancholic, closely linked with Lisbon.",
         "Fado is a Portuguese song form with mournful melodies about longing and fate, usually sung with Portuguese guitar accompaniment.",
         "The melancholy song style called fado grew up in Lisbon's old quarters and was added to UNESCO's intangible heritage list in 2011."),
        ("what is tram 28 in lisbon", "Tram 28 is a historic Lisbon tram line that runs vintage yellow trams through the old districts.",
         "Tram 28 is Lisbon's best-known tram route, using small vintage yellow cars that climb through Graca, Alfama and Baixa.",
         "The historic line 28 winds through the narrow hilly streets of Lisbon's old quarters and is popular with sightseers."),
    ]),
    ("Nairobi", "city", [
        "Nairobi is the capital and largest city of Kenya, in the south of the country.",
        "The city is a regional hub for business, air travel and international organisations in East Africa.",
        "Nairobi has a mild climate for its latitude, with two rainy seasons each year.",
        "The Kenya National Archives and the Nairobi National Museum are in the city centre.",
        "Matatus, privately run minibuses with bright paintwork, carry much of the city's commuter traffic.",
        "Wilson Airport handles light aircraft flights to safari destinations across Kenya.",
    ], [
        ("what does the name nairobi mean", "Nairobi comes from the Maasai phrase Enkare Nairobi, meaning cool water.",
         "The name Nairobi comes from the Maasai words Enkare Nairobi, which translate as a place of cool water.",
         "Nairobi takes its name from a Maasai expression for cool water, after the stream that flowed through the area."),
        ("when was nairobi founded", "Nairobi was founded in 1899 as a depot on the Uganda Railway.",
         "Nairobi began in 1899 as a supply depot and camp on the railway line being built from Mombasa to Uganda.",
         "The city was founded in 1899 by the builders of the Uganda Railway and became the capital of British East Africa in 1905."),
        ("is there a national park in nairobi", "Yes, Nairobi National Park lies within the city's boundaries.",
         "Nairobi National Park lies just a few kilometres from the city centre, so lions and giraffes can be seen with skyscrapers behind them.",
         "Nairobi is the only capital city with a national park within its limits, where rhinos, lions and zebras roam."),
        ("what is the elevation of nairobi", "Nairobi lies at about 1,795 metres above sea level.",
         "Nairobi sits at an altitude of roughly 1,795 metres (about 5,889 feet), which keeps its temperatures moderate.",
         "At around 1,800 metres above sea level, Nairobi is one of the highest capital cities in Africa."),
        ("what un agency is headquartered in nairobi", "The UN Environment Programme is headquartered in Nairobi.",
         "The United Nations Environment Programme (UNEP) has its headquarters in Nairobi, along with UN-Habitat.",
         "Nairobi hosts the global headquarters of UNEP, the UN body that coordinates environmental work."),
    ]),
    ("Kyoto", "city", [
        "Kyoto lies in the Kansai region of Japan, about 15 minutes from Osaka by high-speed train.",
        "The city was spared from large-scale bombing in the Second World War, so many old buildings survive.",
        "Gion is Kyoto's best-known geisha district, with wooden teahouses along narrow lanes.",
        "The Arashiyama bamboo grove on the western edge of the city is one of Japan's most photographed places.",
        "Kyoto cuisine, called kyo-ryori, is known for tofu, seasonal vegetables and refined kaiseki meals.",
        "Cherry blossom season in early April and autumn leaves in November are the busiest times in Kyoto.",
    ], [
        ("how long was kyoto the capital of japan", "Kyoto was Japan's imperial capital from 794 to 1868, more than a thousand years.",
         "Kyoto, founded as Heian-kyo in 794, remained the seat of the emperor until the capital moved to Tokyo in 1868.",
         "For over a thousand years, from 794 until 1868, Kyoto served as the imperial capital of Japan."),
        ("what is kinkaku-ji", "Kinkaku-ji is a Zen temple in Kyoto whose pavilion is covered in gold leaf.",
         "Kinkaku-ji, the Golden Pavilion, is a Zen Buddhist temple in northern Kyoto whose upper floors are covered in gold leaf.",
         "The Golden Pavilion, or Kinkaku-ji, is a gilded three-storey building beside a pond; the present structure was rebuilt after a fire in 1950."),
        ("what is fushimi inari shrine famous for", "Fushimi Inari Shrine is famous for its thousands of red torii gates.",
         "Fushimi Inari Taisha is known for the tunnels of thousands of vermilion torii gates that line the paths up Mount Inari.",
         "The main draw of Fushimi Inari is its trail of orange torii gates, each donated by a person or business."),
        ("what is the kyoto protocol", "The Kyoto Protocol is a 1997 international treaty that set binding greenhouse gas reduction targets.",
         "The Kyoto Protocol, adopted in Kyoto in 1997, committed industrialised countries to binding cuts in greenhouse gas emissions.",
         "Signed at a UN climate conference in Kyoto in December 1997, the Kyoto Protocol set legally binding emission targets and entered into force in 2005."),
        ("how many temples are in kyoto", "Kyoto has about 1,600 Buddhist temples.",
         "There are roughly 1,600 Buddhist temples in Kyoto, as well as some 400 Shinto shrines.",
         "Kyoto is often said to have around 1,600 temples, seventeen of which form a UNESCO World Heritage listing."),
    ]),
    ("Reykjavik", "city", [
        "Reykjavik is the capital of Iceland and lies on the southwest coast of the island.",
        "The Blue Lagoon geothermal spa is about 45 minutes by road from Reykjavik.",
        "The city's concert hall, Harpa, has a glass facade of geometric panels facing the harbour.",
        "In midsummer Reykjavik has almost 24 hours of daylight, while in December the sun is up for only about four hours.",
        "Reykjavik is a common starting point for tours of the Golden Circle, which includes Thingvellir and Geysir.",
        "The old harbour area has been redeveloped with restaurants, whale-watching companies and museums.",
    ], [
        ("what is the northernmost capital in the world", "Reykjavik is the northernmost capital of a sovereign state.",
         "At about 64 degrees north, Reykjavik is the world's northernmost capital city of a sovereign country.",
         "No national capital lies farther north than Reykjavik, Iceland."),
        ("how is reykjavik heated", "Reykjavik is heated mainly by geothermal hot water piped from nearby fields.",
         "Almost all homes in Reykjavik are heated by geothermal water pumped from hot springs and boreholes outside the city.",
         "Reykjavik runs one of the largest geothermal district heating systems in the world, supplying hot water to nearly every building."),
        ("who founded reykjavik", "Reykjavik was settled by the Norse chieftain Ingolfur Arnarson around 874.",
         "According to tradition, the first permanent settler of Iceland, Ingolfur Arnarson, made his home at Reykjavik around the year 874.",
         "The Norseman Ingolfur Arnarson is credited with founding Reykjavik in about 874 AD."),
        ("how tall is hallgrimskirkja", "Hallgrimskirkja is about 74.5 metres tall.",
         "Hallgrimskirkja, the Lutheran church on the hill above central Reykjavik, has a tower 74.5 metres high.",
         "At 74.5 metres, the concrete tower of Hallgrimskirkja is one of the tallest structures in Iceland."),
        ("what is the population of reykjavik", "Reykjavik has about 140,000 residents, and its capital region about 240,000.",
         "Around 140,000 people live in Reykjavik itself and roughly 240,000 in the capital region, about two thirds of Iceland's population.",
         "The city of Reykjavik has a population of about 140,000, making it by far the largest town in Iceland."),
    ]),
    ("Mercury (element)", "element", [
        "Mercury is a heavy, silvery metal and a member of group 12 of the periodic table.",
        "Mercury was once used widely in thermometers, barometers and blood pressure gauges.",
        "Many countries have signed the Minamata Convention, a treaty to reduce mercury use and emissions.",
        "Dental amalgam, used for fillings, is an alloy of mercury with silver, tin and copper.",
        "Fluorescent lamps contain a small amount of mercury vapour, so they should be recycled rather than thrown away.",
        "Mercury forms alloys called amalgams with many metals, including gold and silver.",
    ], [
        ("what is the boiling point of mercury", "Mercury boils at 356.7 degrees Celsius (674 degrees Fahrenheit).",
         "The boiling point of mercury is 356.7 °C, or about 674 °F.",
         "Liquid mercury turns to vapour at 356.7 degrees Celsius under normal atmospheric pressure."),
        ("what is the melting point of mercury", "Mercury melts at minus 38.8 degrees Celsius.",
         "Mercury freezes and melts at -38.83 °C (-37.9 °F), which is why it is liquid at room temperature.",
         "The melting point of mercury is about minus 39 degrees Celsius, the lowest of any stable metal."),
        ("why is the symbol for mercury hg", "Hg comes from the Latin hydrargyrum, meaning water silver.",
         "The chemical symbol Hg comes from hydrargyrum, a Latinised Greek word meaning liquid or water silver.",
         "Mercury's symbol is Hg, an abbreviation of its old name hydrargyrum, which describes its silvery liquid look."),
        ("what ore is mercury extracted from", "Mercury is mainly extracted from cinnabar, a red mercury sulfide mineral.",
         "Most mercury is produced by heating cinnabar, the bright red mineral mercury sulfide, and condensing the vapour.",
         "The main ore of mercury is cinnabar (HgS), mined for centuries at places such as Almaden in Spain."),
        ("why is mercury toxic", "Mercury vapour and mercury compounds damage the nervous system and kidneys.",
         "Mercury is toxic because its vapour is easily absorbed through the lungs and its compounds attack the nervous system, kidneys and other organs.",
         "Inhaled mercury vapour and organic compounds such as methylmercury harm the brain and kidneys, which is why mercury is treated as a poison."),
    ]),
    ("Bromine", "element", [
        "Bromine is a halogen, in the same group as fluorine, chlorine and iodine.",
        "Bromine has a sharp, choking smell and its vapour irritates the eyes and throat.",
        "Bromine has atomic number 35 and the chemical symbol Br.",
        "Bromine is stored in thick glass bottles because it attacks many metals and plastics.",
        "In the laboratory, bromine water turning colourless is a classic test for carbon-carbon double bonds.",
        "Israel and the United States are among the largest producers of bromine.",
    ], [
        ("what is the boiling point of bromine", "Bromine boils at 58.8 degrees Celsius.",
         "The boiling point of bromine is 58.8 °C (137.8 °F), so it evaporates readily at room temperature.",
         "Liquid bromine boils at about 59 degrees Celsius, giving off a dense reddish vapour."),
        ("who discovered bromine", "Bromine was discovered by Antoine Jerome Balard in 1826, and independently by Carl Lowig.",
         "The French chemist Antoine Jerome Balard discovered bromine in 1826 in the residues of seawater from salt marshes.",
         "Bromine was first isolated in the mid-1820s by Carl Lowig and by Antoine Balard, who published his findings in 1826."),
        ("what does the name bromine mean", "Bromine comes from the Greek word bromos, meaning stench.",
         "The name bromine is taken from the Greek bromos, which means stench, a reference to its strong smell.",
         "Bromine was named after the Greek word for a foul smell because of its harsh, irritating odour."),
        ("what is bromine used for", "Bromine is used mainly to make flame retardants, and also in drilling fluids, water treatment and chemicals.",
         "Most bromine goes into brominated flame retardants for plastics and electronics; it is also used in oil drilling fluids and pool disinfectants.",
         "Uses of bromine include fire-retardant chemicals, dense drilling fluids, water purification for spas and pools, and pharmaceutical synthesis."),
        ("what color is bromine", "Bromine is a dark red-brown liquid that gives off orange-brown vapour.",
         "At room temperature bromine is a deep reddish-brown liquid, and its fumes are orange to brown.",
         "Bromine is the only nonmetal that is liquid at room temperature, and it is a dark red-brown colour."),
    ]),
    ("Gallium", "element", [
        "Gallium is a soft, silvery metal with the symbol Ga and atomic number 31.",
        "Gallium is not found free in nature and is obtained mainly as a by-product of aluminium and zinc production.",
        "Gallium attacks aluminium, making it brittle, so it is not allowed in aircraft luggage in large amounts.",
        "Liquid gallium wets glass and skin, leaving a grey mirror-like film.",
        "Gallium has one of the widest liquid ranges of any element.",
        "China produces most of the world's primary gallium.",
    ], [
        ("what is the melting point of gallium", "Gallium melts at 29.76 degrees Celsius, so it melts in your hand.",
         "The melting point of gallium is 29.76 °C (85.6 °F), low enough that a piece will melt in the palm of your hand.",
         "Gallium turns liquid at just under 30 degrees Celsius, slightly below human body temperature."),
        ("who discovered gallium", "Gallium was discovered in 1875 by Paul-Emile Lecoq de Boisbaudran.",
         "The French chemist Paul-Emile Lecoq de Boisbaudran discovered gallium in 1875 by spectroscopy and named it after France (Gallia).",
         "Lecoq de Boisbaudran found gallium in 1875 while studying zinc ore, spotting two new violet lines in its spectrum."),
        ("what is gallium used for", "Gallium is used mostly in semiconductors such as gallium arsenide and gallium nitride for chips and LEDs.",
         "The main use of gallium is in compound semiconductors: gallium arsenide in radio chips and solar cells, and gallium nitride in blue and white LEDs.",
         "Most gallium ends up in electronics, especially gallium nitride LEDs and gallium arsenide microwave circuits."),
        ("what did mendeleev call gallium", "Mendeleev predicted gallium in 1871 and called it eka-aluminium.",
         "Before its discovery, Dmitri Mendeleev predicted gallium's properties and called the missing element eka-aluminium.",
         "Gallium filled the gap in Mendeleev's table that he had labelled eka-aluminium, and its measured density matched his prediction."),
        ("does gallium expand when it freezes", "Yes, gallium expands by about 3 percent when it solidifies.",
         "Like water, gallium expands when it freezes, by about 3.1 percent, so it should not be stored in sealed glass containers.",
         "Solid gallium is less dense than liquid gallium, meaning the metal expands as it freezes."),
    ]),
    ("Tungsten", "element", [
        "Tungsten is a hard, dense, steel-grey metal with atomic number 74.",
        "China supplies most of the world's tungsten, mined from ores such as wolframite and scheelite.",
        "Tungsten is used in high-speed cutting tools, welding electrodes and X-ray tubes.",
        "Tungsten alloys are used as counterweights in aircraft and racing cars because of their density.",
        "The name tungsten comes from Swedish words meaning heavy stone.",
        "Pure tungsten is brittle at room temperature and is hard to machine.",
    ], [
        ("what is the melting point of tungsten", "Tungsten melts at 3,422 degrees Celsius, the highest melting point of any metal.",
         "Tungsten has the highest melting point of all metals, 3,422 °C (6,192 °F).",
         "No metal melts at a higher temperature than tungsten, whose melting point is about 3,400 degrees Celsius."),
        ("why is the symbol for tungsten w", "The symbol W comes from wolfram, tungsten's other name, taken from the mineral wolframite.",
         "Tungsten's symbol W stands for wolfram, the name still used for the element in German and several other languages.",
         "The letter W comes from wolfram, after the ore wolframite, rather than from the English name tungsten."),
        ("what is tungsten carbide used for", "Tungsten carbide is used for cutting tools, drill bits, mining tools and wear parts.",
         "Tungsten carbide, an extremely hard compound of tungsten and carbon, is used for drill bits, saw tips, milling cutters and armour-piercing ammunition.",
         "Because it is nearly as hard as diamond, tungsten carbide is used in machining tools, mining bits, ballpoint pen tips and jewellery."),
        ("who discovered tungsten", "Tungsten was first isolated in 1783 by the Spanish brothers Juan Jose and Fausto Elhuyar.",
         "The Elhuyar brothers of Spain isolated tungsten metal in 1783 by reducing tungstic acid with charcoal.",
         "Carl Wilhelm Scheele identified tungstic acid in 1781, and two years later the brothers Juan Jose and Fausto Elhuyar isolated the metal."),
        ("what is the density of tungsten", "Tungsten has a density of about 19.3 grams per cubic centimetre, about the same as gold.",
         "The density of tungsten is 19.25 g/cm3, almost identical to gold, which is why it has been used in fake gold bars.",
         "At roughly 19.3 grams per cubic centimetre, tungsten is one of the densest metals, about 1.7 times as dense as lead."),
    ]),
    ("Helium", "element", [
        "Helium is a colourless, odourless noble gas with atomic number 2.",
        "Helium does not form stable chemical compounds under normal conditions.",
        "Helium is used to fill party balloons, weather balloons and airships because it is lighter than air.",
        "Deep-sea divers breathe mixtures of helium and oxygen to avoid nitrogen narcosis.",
        "Helium is the second lightest element after hydrogen.",
        "World helium supplies have gone through several shortages, raising prices for hospitals and laboratories.",
    ], [
        ("how was helium discovered", "Helium was discovered in 1868 as a yellow line in the spectrum of the Sun.",
         "Helium was first detected in 1868 by astronomers Pierre Janssen and Norman Lockyer, who saw an unknown yellow line in sunlight during a solar eclipse.",
         "Helium was found in the Sun before it was found on Earth; Lockyer named it after helios, the Greek word for sun, and William Ramsay isolated it in 1895."),
        ("where does helium come from", "Helium on Earth comes from radioactive decay underground and is extracted from natural gas.",
         "Commercial helium is separated from natural gas, where it collects after being produced by the radioactive decay of uranium and thorium in rocks.",
         "Almost all helium we use was made by alpha decay deep underground and trapped in natural gas fields, from which it is refined."),
        ("why does helium make your voice high", "Sound travels faster in helium, which shifts the resonances of your vocal tract upward.",
         "Breathing helium makes your voice sound squeaky because sound moves almost three times faster in helium than in air, raising the resonant frequencies of the throat and mouth.",
         "Your vocal cords vibrate at the same rate in helium, but the faster speed of sound in the gas changes the timbre, so the voice sounds higher."),
        ("what is helium used for in mri", "Liquid helium cools the superconducting magnets in MRI scanners.",
         "MRI machines use liquid helium to keep their superconducting magnet coils at about 4 kelvin.",
         "The largest single use of helium is as a coolant for the superconducting magnets in MRI scanners."),
        ("what is the boiling point of helium", "Helium boils at minus 268.9 degrees Celsius (4.2 kelvin).",
         "Helium has the lowest boiling point of any element, -268.93 °C, which is just 4.2 degrees above absolute zero.",
         "Liquid helium boils at about 4.2 K, and it does not freeze at normal pressure even at absolute zero."),
    ]),
    ("Mars", "planet", [
        "Mars is the fourth planet from the Sun and the second smallest planet in the solar system.",
        "Mars has a thin atmosphere made mostly of carbon dioxide, with a surface pressure less than one percent of Earth's.",
        "Valles Marineris is a system of canyons on Mars more than 4,000 kilometres long.",
        "Several rovers, including Curiosity and Perseverance, are exploring the Martian surface.",
        "Mars has polar ice caps made of water ice and frozen carbon dioxide.",
        "The gravity on Mars is about 38 percent of the gravity on Earth.",
    ], [
        ("how long is a year on mars", "A year on Mars lasts about 687 Earth days.",
         "Mars takes 687 Earth days, or about 1.88 Earth years, to complete one orbit of the Sun.",
         "One Martian year is roughly 687 days long, nearly twice as long as a year on Earth."),
        ("how many moons does mars have", "Mars has two moons, Phobos and Deimos.",
         "Mars has two small, irregularly shaped moons called Phobos and Deimos, discovered by Asaph Hall in 1877.",
         "The two moons of Mars, Phobos and Deimos, are thought by many scientists to be captured asteroids."),
        ("why is mars red", "Mars looks red because its surface dust is rich in iron oxide, or rust.",
         "The red colour of Mars comes from iron oxide, essentially rust, in the fine dust covering its rocks.",
         "Mars is called the Red Planet because iron minerals in its soil have oxidised, giving the dust a reddish tint."),
        ("what is the tallest volcano on mars", "Olympus Mons is the tallest volcano on Mars, about 22 kilometres high.",
         "Olympus Mons, a shield volcano about 22 km high, is the tallest volcano on Mars and in the solar system.",
         "The biggest volcano on Mars is Olympus Mons, which rises some 22 kilometres, around two and a half times the height of Everest."),
        ("how long is a day on mars", "A day on Mars, called a sol, lasts 24 hours and about 37 minutes.",
         "A Martian day, or sol, is 24 hours 39 minutes long, just a little longer than a day on Earth.",
         "Mars rotates once every 24.6 hours, so mission teams work on sols that are about 40 minutes longer than Earth days."),
    ]),
    ("Jupiter", "planet", [
        "Jupiter is the fifth planet from the Sun and the largest planet in the solar system.",
        "Jupiter is a gas giant made mostly of hydrogen and helium.",
        "Jupiter has a faint ring system made of dust, discovered by the Voyager 1 probe in 1979.",
        "The Juno spacecraft has been orbiting Jupiter since 2016, studying its interior and magnetic field.",
        "Jupiter's mass is more than twice that of all the other planets combined.",
        "Jupiter's moon Europa is thought to hide a salty ocean beneath its icy crust.",
    ], [
        ("how long is a day on jupiter", "A day on Jupiter lasts just under 10 hours.",
         "Jupiter spins faster than any other planet, completing one rotation in about 9 hours and 56 minutes.",
         "A Jovian day is only about ten hours long, and the rapid spin flattens the planet at its poles."),
        ("what is the great red spot", "The Great Red Spot is a giant storm on Jupiter that has lasted for centuries.",
         "The Great Red Spot is an enormous anticyclonic storm in Jupiter's southern hemisphere, wider than Earth and observed since at least the 1800s.",
         "Jupiter's Great Red Spot is a long-lived high-pressure storm system whose winds reach several hundred kilometres per hour."),
        ("how many moons does jupiter have", "Jupiter has more than 90 known moons.",
         "Astronomers have confirmed over 90 moons orbiting Jupiter, and more small ones are still being found.",
         "Jupiter has at least 95 officially recognised moons, most of them only a few kilometres across."),
        ("who discovered jupiter's moons", "Galileo Galilei discovered Jupiter's four largest moons in 1610.",
         "In January 1610 Galileo Galilei spotted Io, Europa, Ganymede and Callisto with his telescope; they are now called the Galilean moons.",
         "The four big moons of Jupiter were discovered by Galileo in 1610, the first moons found orbiting another planet."),
        ("how long does jupiter take to orbit the sun", "Jupiter takes about 11.9 Earth years to orbit the Sun.",
         "One orbit of Jupiter around the Sun takes nearly 12 Earth years, 4,333 days to be exact.",
         "A year on Jupiter lasts 11.86 Earth years."),
    ]),
    ("Venus", "planet", [
        "Venus is the second planet from the Sun and is similar to Earth in size and mass.",
        "Venus is the brightest natural object in the night sky after the Moon.",
        "Venus has no moons and no rings.",
        "The Soviet Venera landers sent back the first pictures from the surface of Venus in the 1970s.",
        "Venus is sometimes called the morning star or the evening star because it is visible near sunrise or sunset.",
        "The surface of Venus is covered with volcanic plains and highland regions.",
    ], [
        ("why is venus the hottest planet", "Venus is the hottest planet because its thick carbon dioxide atmosphere traps heat in a runaway greenhouse effect.",
         "Although Mercury is closer to the Sun, Venus is hotter, about 465 °C at the surface, because its dense carbon dioxide atmosphere traps heat.",
         "A runaway greenhouse effect keeps the surface of Venus at around 460 degrees Celsius, hot enough to melt lead."),
        ("how long is a day on venus", "One rotation of Venus takes 243 Earth days, longer than its 225-day year.",
         "Venus rotates so slowly that one sidereal day lasts 243 Earth days, longer than the 225 days it takes to orbit the Sun.",
         "A day on Venus is longer than a year on Venus: the planet turns once every 243 Earth days."),
        ("what is venus atmosphere made of", "The atmosphere of Venus is about 96 percent carbon dioxide with clouds of sulfuric acid.",
         "Venus has a very dense atmosphere of about 96.5 percent carbon dioxide and 3.5 percent nitrogen, topped by clouds of sulfuric acid droplets.",
         "Thick layers of sulfuric acid cloud float in the carbon dioxide atmosphere of Venus, hiding the surface from view."),
        ("which direction does venus rotate", "Venus rotates backwards, from east to west, the opposite of most planets.",
         "Venus has retrograde rotation: it spins in the opposite direction to its orbit, so on Venus the Sun rises in the west.",
         "Unlike Earth, Venus turns from east to west, a backward spin that scientists think may have been caused by a large impact or atmospheric tides."),
        ("what is the surface pressure on venus", "The surface pressure on Venus is about 92 times that on Earth.",
         "Atmospheric pressure at the surface of Venus is about 92 bar, similar to the pressure 900 metres deep in Earth's oceans.",
         "Standing on Venus you would feel roughly 90 times Earth's air pressure, enough to crush early landers."),
    ]),
    ("Neptune", "planet", [
        "Neptune is the eighth and farthest known planet from the Sun.",
        "Neptune is an ice giant, with a thick atmosphere of hydrogen, helium and methane over a mantle of water, ammonia and methane ices.",
        "Neptune has a faint system of five main rings.",
        "Voyager 2 is the only spacecraft to have visited Neptune, flying past in August 1989.",
        "Neptune is not visible to the naked eye and needs binoculars or a telescope.",
        "Neptune radiates more than twice as much heat as it receives from the Sun.",
    ], [
        ("who discovered neptune", "Neptune was discovered in 1846 by Johann Galle, using predictions by Urbain Le Verrier.",
         "Johann Galle found Neptune on 23 September 1846 at the Berlin Observatory, close to the position calculated by Urbain Le Verrier.",
         "Neptune was the first planet located by mathematical prediction: Le Verrier computed its position and Galle spotted it in 1846."),
        ("how long does it take neptune to orbit the sun", "Neptune takes about 165 Earth years to orbit the Sun.",
         "One Neptunian year lasts about 165 Earth years, so Neptune completed its first orbit since discovery only in 2011.",
         "Neptune needs roughly 165 years to travel once around the Sun."),
        ("why is neptune blue", "Neptune is blue because methane in its atmosphere absorbs red light.",
         "Methane gas in Neptune's upper atmosphere absorbs red wavelengths and reflects blue light back into space.",
         "The blue colour of Neptune comes from methane, which soaks up red light, along with haze particles in its atmosphere."),
        ("what is neptune's largest moon", "Neptune's largest moon is Triton.",
         "Triton is by far the largest of Neptune's moons, and it orbits in the opposite direction to the planet's rotation.",
         "Neptune's biggest moon, Triton, is probably a captured Kuiper belt object and has active nitrogen geysers."),
        ("how fast are the winds on neptune", "Winds on Neptune reach about 2,100 kilometres per hour, the fastest in the solar system.",
         "Neptune has the strongest winds of any planet, with gusts of up to around 2,100 km/h (1,300 mph).",
         "Wind speeds on Neptune can exceed 2,000 kilometres per hour, faster than the speed of sound on Earth."),
    ]),
    ("Measles", "disease", [
        "Measles is a viral infection that mainly affects children but can strike at any age.",
        "Measles was declared eliminated from the United States in 2000, but outbreaks still occur when vaccination rates fall.",
        "Measles can weaken the immune system for months or years, a process sometimes called immune amnesia.",
        "There is no specific antiviral treatment for measles; care focuses on fluids, fever control and vitamin A.",
        "Measles spreads through the air when an infected person coughs or sneezes.",
        "Complications of measles include pneumonia, ear infections and, rarely, encephalitis.",
    ], [
        ("what are the first symptoms of measles", "The first symptoms of measles are high fever, cough, runny nose and red watery eyes.",
         "Measles usually starts with a high fever, a cough, a runny nose and red, watery eyes, a few days before the rash appears.",
         "Early measles looks like a bad cold, with fever, cough, coryza and conjunctivitis, followed three to five days later by a spreading rash."),
        ("how effective is the mmr vaccine against measles", "Two doses of MMR vaccine are about 97 percent effective against measles.",
         "Two doses of the measles, mumps and rubella vaccine protect about 97 percent of people against measles; one dose protects about 93 percent.",
         "The MMR vaccine is highly effective: after two doses around 97 out of 100 people are protected from measles for life."),
        ("how contagious is measles", "Measles is extremely contagious: up to 9 in 10 unprotected close contacts catch it.",
         "Measles is one of the most contagious diseases known; about 90 percent of people without immunity who are close to an infected person will get it.",
         "The measles virus can linger in the air for up to two hours, and nine out of ten unvaccinated contacts become infected."),
        ("what are koplik spots", "Koplik spots are small white spots inside the cheeks that appear early in measles.",
         "Koplik spots are tiny white or bluish-white spots on a red background inside the mouth, a telltale early sign of measles.",
         "Two or three days after symptoms begin, small white Koplik spots may appear on the inner lining of the cheeks in people with measles."),
        ("incubation period for measles", "The incubation period of measles is usually 10 to 14 days.",
         "Symptoms of measles generally appear 10 to 14 days after exposure to the virus, although it can be as long as 21 days.",
         "After someone catches measles it takes around ten days to two weeks before the fever starts."),
    ]),
    ("Tuberculosis", "disease", [
        "Tuberculosis, or TB, most often affects the lungs but can involve the kidneys, spine and brain.",
        "Tuberculosis is one of the leading infectious causes of death worldwide.",
        "Symptoms of active TB include a cough lasting more than three weeks, night sweats, weight loss and fever.",
        "Drug-resistant TB needs longer and more complex treatment with second-line medicines.",
        "TB is diagnosed with skin tests, blood tests, chest X-rays and sputum tests.",
        "People with HIV have a much higher risk of developing active tuberculosis.",
    ], [
        ("what causes tuberculosis", "Tuberculosis is caused by the bacterium Mycobacterium tuberculosis, spread through the air.",
         "TB is caused by Mycobacterium tuberculosis, a bacterium passed from person to person through droplets when someone with active lung disease coughs.",
         "The cause of tuberculosis is infection with Mycobacterium tuberculosis, which spreads when people breathe in bacteria released by a sick person."),
        ("how long is tb treatment", "Standard treatment for active TB lasts at least six months.",
         "Drug-sensitive tuberculosis is usually treated for six months with a combination of isoniazid, rifampicin, ethambutol and pyrazinamide.",
         "A full course of TB antibiotics normally takes six months, and stopping early can lead to drug resistance."),
        ("what is latent tuberculosis", "Latent TB is an infection in which the bacteria are alive but inactive, causing no symptoms and not spreading.",
         "In latent tuberculosis a person carries TB bacteria without feeling sick and cannot pass them on, but the infection can become active later.",
         "About a quarter of the world's population is thought to have latent TB, an inactive infection that may turn into active disease."),
        ("who discovered the tuberculosis bacterium", "Robert Koch discovered the tuberculosis bacterium in 1882.",
         "The German physician Robert Koch announced the discovery of Mycobacterium tuberculosis on 24 March 1882, now marked as World TB Day.",
         "In 1882 Robert Koch identified the bacterium that causes TB, work that later earned him the Nobel Prize."),
        ("what is the bcg vaccine", "BCG is a vaccine against tuberculosis made from a weakened strain of bovine TB bacteria.",
         "The BCG vaccine, Bacille Calmette-Guerin, uses a weakened strain of Mycobacterium bovis and mainly protects young children from severe forms of TB.",
         "Developed by Calmette and Guerin in the 1920s, BCG is given to infants in many countries to prevent tuberculous meningitis and other serious TB."),
    ]),
    ("Malaria", "disease", [
        "Malaria is a life-threatening disease found mostly in tropical and subtropical regions.",
        "Most malaria deaths occur among young children in sub-Saharan Africa.",
        "Symptoms of malaria include fever, chills, headache and muscle aches, often appearing in cycles.",
        "Travellers to malaria areas are advised to take preventive tablets and avoid mosquito bites.",
        "Insecticide-treated bed nets and indoor spraying are key tools for preventing malaria.",
        "Malaria is diagnosed with a blood smear under a microscope or a rapid diagnostic test.",
    ], [
        ("how is malaria transmitted", "Malaria is spread by the bites of infected female Anopheles mosquitoes.",
         "People get malaria when an infected female Anopheles mosquito bites them and injects parasites into the blood.",
         "Malaria passes between people through mosquito bites; only female Anopheles mosquitoes carry the parasite."),
        ("what causes malaria", "Malaria is caused by Plasmodium parasites.",
         "Malaria is caused by single-celled Plasmodium parasites that multiply in the liver and then infect red blood cells.",
         "Five species of Plasmodium parasite cause malaria in humans."),
        ("what is the deadliest type of malaria", "Plasmodium falciparum causes the deadliest form of malaria.",
         "Plasmodium falciparum is the most dangerous malaria parasite and causes most severe cases and deaths.",
         "Falciparum malaria can quickly lead to cerebral malaria and organ failure, making it the deadliest type."),
        ("what is the treatment for malaria", "Malaria is usually treated with artemisinin-based combination therapies.",
         "Uncomplicated falciparum malaria is treated with artemisinin-based combination therapy, while severe malaria needs injectable artesunate.",
         "Doctors treat most malaria with ACTs, drug combinations built around artemisinin, a compound from sweet wormwood."),
        ("is there a vaccine for malaria", "Yes, the RTS,S and R21 vaccines are recommended for children in malaria areas.",
         "Two malaria vaccines, RTS,S/AS01 and R21/Matrix-M, have been recommended by the WHO for children living in areas with malaria.",
         "Since 2021 the WHO has recommended malaria vaccination for young children, first with RTS,S and later also with R21."),
    ]),
    ("Shingles", "disease", [
        "Shingles is also called herpes zoster.",
        "Shingles is most common in people over 50 and in people with weakened immune systems.",
        "Antiviral medicines such as aciclovir work best if started within three days of the rash appearing.",
        "Before the rash appears, people with shingles often feel tingling, itching or burning in one area of skin.",
        "The shingles rash usually crusts over within 7 to 10 days and clears within two to four weeks.",
        "Shingles near the eye needs urgent medical attention because it can damage vision.",
    ], [
        ("what causes shingles", "Shingles is caused by reactivation of the chickenpox virus, varicella-zoster.",
         "Shingles happens when the varicella-zoster virus, which stays dormant in nerve cells after chickenpox, becomes active again.",
         "Anyone who has had chickenpox can develop shingles later, because the same virus lies hidden in the nerves and can reawaken."),
        ("can you catch shingles from someone", "You cannot catch shingles, but someone without immunity can catch chickenpox from a shingles rash.",
         "Shingles itself is not passed from person to person; however, the virus in the blisters can give chickenpox to someone who never had it or the vaccine.",
         "You can't get shingles from another person, but contact with open shingles blisters can cause chickenpox in people who are not immune."),
        ("what is postherpetic neuralgia", "Postherpetic neuralgia is nerve pain that persists after a shingles rash has healed.",
         "Postherpetic neuralgia is the most common complication of shingles: burning pain that lasts for months or longer where the rash was.",
         "When pain continues for three months or more after shingles clears, it is called postherpetic neuralgia."),
        ("who should get the shingles vaccine", "Adults aged 50 and over, and adults with weakened immune systems, are advised to get the shingles vaccine.",
         "The recombinant shingles vaccine is recommended in two doses for adults 50 and older and for immunocompromised adults from age 19.",
         "Health agencies advise healthy adults over 50 to get two doses of the shingles vaccine, even if they have had shingles before."),
        ("what does a shingles rash look like", "A shingles rash is a band of painful fluid-filled blisters on one side of the body.",
         "Shingles typically appears as a stripe of red skin and clustered blisters on one side of the chest, back or face.",
         "The rash of shingles follows a single nerve, forming a belt-like band of blisters that does not cross the midline of the body."),
    ]),
    ("Tetanus", "disease", [
        "Tetanus is a serious but preventable bacterial infection.",
        "Tetanus is not spread from person to person.",
        "Treatment of tetanus includes wound cleaning, tetanus immune globulin, antibiotics and drugs to control spasms.",
        "Tetanus is rare in countries with high vaccination rates but still causes deaths among newborns in some regions.",
        "The tetanus vaccine is given in combination with diphtheria and pertussis vaccines.",
        "Deep puncture wounds, burns and animal bites carry the highest risk of tetanus.",
    ], [
        ("what causes tetanus", "Tetanus is caused by a toxin made by the bacterium Clostridium tetani.",
         "Tetanus is caused by Clostridium tetani, whose spores live in soil and dust and enter the body through wounds.",
         "The bacterium Clostridium tetani produces a nerve toxin, tetanospasmin, that causes the symptoms of tetanus."),
        ("how often do you need a tetanus shot", "Adults need a tetanus booster every 10 years.",
         "After the childhood series, adults should get a tetanus booster every ten years, or sooner after a dirty wound.",
         "A tetanus booster is recommended every 10 years; after a deep or dirty injury a booster is given if the last dose was more than five years ago."),
        ("why is tetanus called lockjaw", "Tetanus is called lockjaw because it often causes spasms that clench the jaw muscles shut.",
         "The nickname lockjaw comes from one of the first signs of tetanus, stiffness and spasm of the jaw muscles that make it hard to open the mouth.",
         "Tetanus toxin causes painful muscle stiffness that often starts in the jaw, which is why the disease is known as lockjaw."),
        ("tetanus incubation period", "The incubation period of tetanus is usually 3 to 21 days, about 8 days on average.",
         "Symptoms of tetanus usually begin between 3 and 21 days after infection, with an average of around eight days.",
         "Tetanus typically shows up about a week after the injury, though the range is from a few days to three weeks."),
        ("can you get tetanus from a rusty nail", "Rust does not cause tetanus; the risk comes from bacteria in dirt on the object.",
         "A rusty nail does not cause tetanus by itself; the danger is that nails lying outside are often covered in soil containing tetanus spores.",
         "It is a myth that rust gives you tetanus: any dirty puncture wound can let Clostridium tetani spores in, rusty or not."),
    ]),
    ("Violin", "instrument", [
        "The violin is the smallest and highest-pitched member of the violin family, which also includes the viola, cello and double bass.",
        "Violins are played by drawing a bow across the strings or by plucking them, a technique called pizzicato.",
        "A violin's sound post, a small wooden dowel inside the body, carries vibrations from the top to the back.",
        "Beginners, especially children, often start on fractional violins such as 1/2 or 3/4 size.",
        "The violin is central to Western classical music as well as folk styles such as Irish fiddle and bluegrass.",
        "Violin strings used to be made of gut; today most are synthetic or steel.",
    ], [
        ("how many strings does a violin have", "A violin has four strings, tuned G, D, A and E.",
         "A standard violin has four strings tuned in perfect fifths: G, D, A and E, from lowest to highest.",
         "The violin's four strings are tuned to G3, D4, A4 and E5."),
        ("what wood are violins made of", "Violins usually have a spruce top and maple back, sides and neck.",
         "Most violins are made with a spruce top, or belly, and a back, ribs and neck of maple, with an ebony fingerboard.",
         "Traditional violin makers carve the top plate from spruce and the back from flamed maple."),
        ("what is a violin bow made of", "A violin bow is a wooden stick, traditionally pernambuco, strung with horsehair.",
         "Violin bows are made of a pernambuco or carbon fibre stick with a ribbon of horsehair that is rubbed with rosin.",
         "The hair of a violin bow is usually white horse tail hair, stretched along a stick of pernambuco wood."),
        ("who was antonio stradivari", "Antonio Stradivari was an Italian violin maker from Cremona who lived from about 1644 to 1737.",
         "Antonio Stradivari was a luthier in Cremona, Italy, whose violins from the early 1700s are considered among the finest ever made.",
         "The Cremonese craftsman Antonio Stradivari made more than a thousand instruments; his violins, called Stradivarius, sell for millions."),
        ("what is the difference between a violin and a viola", "A viola is slightly larger than a violin, has a lower C string instead of E, and reads alto clef.",
         "The viola is a bit bigger than the violin and is tuned a fifth lower, C-G-D-A, giving it a darker sound; its music is written mainly in alto clef.",
         "Violas and violins look alike, but the viola is larger, lacks the violin's E string and has a low C string instead."),
    ]),
    ("Oboe", "instrument", [
        "The oboe is a woodwind instrument with a bright, penetrating tone.",
        "A symphony orchestra usually has two or three oboes.",
        "The cor anglais, or English horn, is a larger, lower member of the oboe family.",
        "Many oboists make or finish their own reeds, scraping cane with a knife.",
        "Famous oboe solos appear in Tchaikovsky's Swan Lake and Prokofiev's Peter and the Wolf, where it plays the duck.",
        "The modern oboe has a complex system of keys developed in the 19th century, largely in France.",
    ], [
        ("why does the orchestra tune to the oboe", "Orchestras tune to the oboe's A because its pitch is stable and its tone carries clearly.",
         "The oboe gives the tuning A because its pitch is hard to bend and its piercing sound can be heard across the whole orchestra.",
         "Before a concert the principal oboe plays an A; the instrument is used because its tone is clear and its tuning is not easily adjusted."),
        ("what kind of reed does an oboe use", "The oboe uses a double reed, two blades of cane tied together.",
         "An oboe is played with a double reed made of two thin pieces of cane bound onto a small metal tube called a staple.",
         "Oboes are double-reed instruments: the player blows between two vibrating blades of cane."),
        ("where does the word oboe come from", "Oboe comes from the French hautbois, meaning high or loud wood.",
         "The word oboe is an Italian spelling of the French hautbois, literally high wood, meaning a loud woodwind.",
         "Oboe derives from hautbois, a French name used in the 17th century for a loud, high-pitched wooden instrument."),
        ("what wood is an oboe made of", "Most oboes are made of grenadilla, African blackwood.",
         "Professional oboes are usually made from grenadilla, also called African blackwood, though some use rosewood or cocobolo.",
         "The body of a typical oboe is turned from dense African blackwood, and student models are often plastic."),
        ("what is the difference between an oboe and a clarinet", "An oboe uses a double reed and has a conical bore, while a clarinet uses a single reed and a cylindrical bore.",
         "The oboe has a double reed and a cone-shaped bore, while the clarinet has a single reed on a mouthpiece and a mostly cylindrical bore.",
         "Although both are black woodwinds, the clarinet is played with one reed on a mouthpiece and the oboe with a double reed held directly in the lips."),
    ]),
    ("Harp", "instrument", [
        "The harp is a plucked string instrument whose strings run at an angle to its soundboard.",
        "Harpists pluck the strings with the pads of the first four fingers of each hand; the little fingers are not used.",
        "Lever harps, also called Celtic or folk harps, are smaller and change key with small levers at the top of each string.",
        "A concert harp weighs around 35 to 40 kilograms.",
        "The harp plays glissandos and arpeggios in many orchestral works by Debussy and Ravel.",
        "Harp strings are made of gut, nylon or wire, depending on their range.",
    ], [
        ("how many strings does a harp have", "A concert pedal harp usually has 47 strings.",
         "A standard concert pedal harp has 47 strings covering six and a half octaves.",
         "Full-size pedal harps have 47 strings, while lever harps often have between 22 and 38."),
        ("what do the pedals on a harp do", "The seven pedals change the pitch of every string of one note name, making it flat, natural or sharp.",
         "A pedal harp has seven pedals, one for each note name; each pedal can raise all strings of that note by one or two semitones.",
         "The harp's pedals let the player change key: each of the seven pedals has three positions, flat, natural and sharp."),
        ("why are some harp strings red", "The C strings are coloured red and the F strings black or blue so players can find their place.",
         "On most harps all C strings are dyed red and all F strings black or dark blue, to help the harpist find notes quickly.",
         "Coloured strings are landmarks: red for every C and black or navy for every F."),
        ("how old is the harp", "The harp is one of the oldest instruments, with examples from Mesopotamia around 3000 BC.",
         "Harps date back about five thousand years; instruments found in the royal tombs of Ur in Mesopotamia are among the oldest known.",
         "Images of harps appear in Egyptian tombs and Sumerian artefacts from around 3000 BC."),
        ("why is the harp a symbol of ireland", "The harp has been Ireland's national emblem for centuries and appears on its coins, passports and seal.",
         "The harp has been associated with Ireland since the Middle Ages, when Gaelic harpers were honoured musicians; it is now the state emblem.",
         "Ireland uses the harp as its official national symbol, seen on euro coins, the presidential seal and Irish passports."),
    ]),
    ("Bagpipes", "instrument", [
        "Bagpipes are played in many countries, including Scotland, Ireland, Spain, Bulgaria and India.",
        "Pipe bands combine bagpipes with snare, tenor and bass drums.",
        "The bagpipe has a loud sound that can be heard over long distances, which made it useful in battle.",
        "Learners usually start on a practice chanter before playing the full pipes.",
        "Bagpipe music is often played at weddings, funerals and military ceremonies.",
        "The bag of a bagpipe was traditionally made of sheep or goat skin, but synthetic bags are now common.",
    ], [
        ("how do bagpipes work", "The piper blows air into a bag and squeezes it with the arm to push a steady flow of air through the reeded pipes.",
         "Bagpipes work by storing air in a bag: the player blows in through a blowpipe and presses the bag with the arm so air keeps flowing through the chanter and drones.",
         "Because the bag acts as an air reservoir, a piper can breathe while the pipes continue to sound without a break."),
        ("how many drones does a highland bagpipe have", "The Great Highland bagpipe has three drones, two tenor and one bass.",
         "A Scottish Great Highland bagpipe has three drones: two tenor drones and a longer bass drone an octave lower.",
         "Highland pipes have three drones resting on the shoulder, which sound a continuous chord under the melody."),
        ("what is a bagpipe chanter", "The chanter is the pipe with finger holes on which the melody is played.",
         "The chanter is the melody pipe of a bagpipe, fitted with finger holes and a double reed.",
         "On a bagpipe the tune is fingered on the chanter, while the drones provide a constant background note."),
        ("what are uilleann pipes", "Uilleann pipes are Irish bagpipes inflated with a bellows under the arm rather than by mouth.",
         "The uilleann pipes are the national bagpipe of Ireland, filled by a small bellows pumped with the elbow and played sitting down.",
         "Unlike the Scottish pipes, Irish uilleann pipes are bellows-blown and have a softer tone and a range of two octaves."),
        ("where did bagpipes originate", "Bagpipes probably originated in the ancient Middle East or Mediterranean, not in Scotland.",
         "Bagpipes are thought to have come from the Middle East and were known in ancient Rome before spreading across Europe.",
         "Although linked with Scotland, bagpipes most likely began in the ancient Near East and reached Britain much later."),
    ]),
    ("Berlin Wall", "event", [
        "The Berlin Wall divided East and West Berlin during the Cold War.",
        "East Germany called the wall the Anti-Fascist Protection Rampart.",
        "The area between the inner and outer walls, known as the death strip, had watchtowers, floodlights and guards.",
        "Parts of the wall survive today, including the East Side Gallery, a long stretch covered in murals.",
        "Checkpoint Charlie was the best-known crossing point between East and West Berlin for foreigners.",
        "President Ronald Reagan urged Mikhail Gorbachev to tear down the wall in a speech in Berlin in 1987.",
    ], [
        ("when did the berlin wall fall", "The Berlin Wall fell on 9 November 1989.",
         "On the night of 9 November 1989, East German authorities opened the border crossings and crowds began to dismantle the Berlin Wall.",
         "The fall of the Berlin Wall came on November 9, 1989, after a confused announcement that East Germans could travel freely."),
        ("when was the berlin wall built", "Construction of the Berlin Wall began on 13 August 1961.",
         "East Germany began building the Berlin Wall on 13 August 1961, at first with barbed wire and then with concrete.",
         "The Berlin Wall went up overnight on August 13, 1961, to stop the flow of East Germans to the West."),
        ("how long was the berlin wall", "The Berlin Wall was about 155 kilometres long.",
         "In total the Berlin Wall stretched about 155 km (96 miles), encircling West Berlin.",
         "The barrier around West Berlin ran for some 155 kilometres, of which about 43 km separated East and West Berlin directly."),
        ("how many people died trying to cross the berlin wall", "At least 140 people were killed at the Berlin Wall between 1961 and 1989.",
         "Researchers have documented at least 140 deaths at the Berlin Wall, most of them people shot while trying to escape.",
         "More than 140 people died at the Berlin Wall during its 28 years, according to the Berlin Wall Memorial."),
        ("when did germany reunify", "Germany was reunified on 3 October 1990.",
         "East and West Germany were formally reunited on 3 October 1990, a date now celebrated as German Unity Day.",
         "German reunification took effect on October 3, 1990, less than a year after the wall fell."),
    ]),
    ("Great Fire of London", "event", [
        "The Great Fire of London was one of the worst disasters in the city's history.",
        "A hot, dry summer and a strong east wind helped the fire spread through timber houses.",
        "Diarist Samuel Pepys described the fire and buried his parmesan cheese and wine to save them.",
        "After the fire, new building rules required brick and stone instead of timber.",
        "Firefighters of the time used buckets, hand squirts and hooks to pull down buildings.",
        "The fire came one year after the Great Plague of 1665.",
    ], [
        ("when was the great fire of london", "The Great Fire of London burned from 2 to 6 September 1666.",
         "The Great Fire of London started in the early hours of Sunday 2 September 1666 and burned until 6 September.",
         "In September 1666 a fire swept through the City of London for four days."),
        ("where did the great fire of london start", "The Great Fire of London started in Thomas Farriner's bakery on Pudding Lane.",
         "The fire began shortly after midnight in the bakery of Thomas Farriner on Pudding Lane, near London Bridge.",
         "A baker's shop in Pudding Lane, belonging to Thomas Farriner, was where the Great Fire of London broke out."),
        ("how many houses were destroyed in the great fire of london", "The fire destroyed about 13,200 houses and 87 parish churches.",
         "Some 13,200 houses, 87 parish churches and the old St Paul's Cathedral were destroyed in the Great Fire.",
         "The fire consumed about 13,000 homes, leaving an estimated 70,000 of the City's 80,000 residents homeless."),
        ("how many people died in the great fire of london", "Only six deaths were officially recorded, though the true number is unknown and probably higher.",
         "Official records list just six deaths in the Great Fire of London, but historians think many more poor people died unrecorded.",
         "The recorded death toll of the Great Fire was remarkably low, six people, although the real figure may have been much higher."),
        ("what is the monument to the great fire of london", "The Monument is a 202-foot column near Pudding Lane, designed by Christopher Wren and Robert Hooke.",
         "The Monument to the Great Fire of London is a Doric column 202 feet high, the same as its distance from the site of the bakery where the fire began.",
         "Built between 1671 and 1677 to designs by Wren and Hooke, the Monument is a stone column with 311 steps to a viewing platform."),
    ]),
    ("Boston Tea Party", "event", [
        "The Boston Tea Party took place at Griffin's Wharf in Boston Harbor.",
        "Some of the participants disguised themselves as Mohawk warriors.",
        "The tea belonged to the British East India Company, which was in financial difficulty.",
        "The protest was one of the events that led to the American Revolutionary War.",
        "Tea boycotts and protests also took place in New York, Philadelphia and Charleston.",
        "A museum with replica ships now stands near the site of the protest in Boston.",
    ], [
        ("when was the boston tea party", "The Boston Tea Party took place on 16 December 1773.",
         "On the night of December 16, 1773, colonists boarded three ships in Boston Harbor and threw their cargo of tea overboard.",
         "The Boston Tea Party happened in December 1773, on the 16th."),
        ("why did the boston tea party happen", "Colonists protested the Tea Act and taxation by a Parliament in which they had no representatives.",
         "The Boston Tea Party was a protest against the Tea Act of 1773 and the principle of taxation without representation.",
         "Colonists dumped the tea because they objected to the British tax on tea and the East India Company's monopoly granted by the Tea Act."),
        ("how much tea was dumped in the boston tea party", "Protesters dumped 342 chests of tea into Boston Harbor.",
         "A total of 342 chests of East India Company tea, about 92,000 pounds, were thrown into the harbour.",
         "The protesters destroyed 342 chests of tea, worth roughly a million US dollars in today's money."),
        ("who organized the boston tea party", "The Boston Tea Party was organised by the Sons of Liberty, led by figures such as Samuel Adams.",
         "The Sons of Liberty, a group of colonial activists including Samuel Adams and John Hancock, planned the Boston Tea Party.",
         "Samuel Adams and the Sons of Liberty are usually credited with organising the destruction of the tea."),
        ("what was the british response to the boston tea party", "Britain passed the Coercive Acts, called the Intolerable Acts, in 1774 and closed Boston's port.",
         "Parliament responded in 1774 with the Coercive Acts, known in the colonies as the Intolerable Acts, which closed Boston Harbor until the tea was paid for.",
         "In reaction, Britain closed the port of Boston and restricted self-government in Massachusetts through the Intolerable Acts."),
    ]),
    ("Apollo 11", "event", [
        "Apollo 11 was the first crewed mission to land on the Moon.",
        "The mission was launched by a Saturn V rocket from Kennedy Space Center in Florida.",
        "An estimated 600 million people watched the first moonwalk on television.",
        "The crew left a plaque, a US flag and scientific instruments, including a laser reflector, on the Moon.",
        "After returning, the astronauts spent three weeks in quarantine.",
        "The command module Columbia is displayed at the National Air and Space Museum in Washington.",
    ], [
        ("when did apollo 11 land on the moon", "Apollo 11 landed on the Moon on 20 July 1969.",
         "The Apollo 11 lunar module touched down on the Moon on July 20, 1969, and Neil Armstrong stepped onto the surface a few hours later.",
         "Humans first landed on the Moon on 20 July 1969, during NASA's Apollo 11 mission."),
        ("who were the astronauts on apollo 11", "The Apollo 11 crew were Neil Armstrong, Buzz Aldrin and Michael Collins.",
         "Neil Armstrong was commander, Buzz Aldrin piloted the lunar module and Michael Collins stayed in orbit in the command module.",
         "Apollo 11 carried three astronauts: Armstrong and Aldrin, who walked on the Moon, and Collins, who orbited above."),
        ("where did apollo 11 land on the moon", "Apollo 11 landed in the Sea of Tranquility.",
         "Apollo 11 landed at Tranquility Base in the Mare Tranquillitatis, or Sea of Tranquility, a flat lava plain.",
         "The landing site of Apollo 11 was in the southwestern Sea of Tranquility."),
        ("what was the name of the apollo 11 lunar module", "The Apollo 11 lunar module was named Eagle.",
         "The lunar module of Apollo 11 was called Eagle, and the command module was called Columbia.",
         "Armstrong and Aldrin landed in the lunar module Eagle, announcing that the Eagle has landed."),
        ("how much moon rock did apollo 11 bring back", "Apollo 11 brought back about 21.5 kilograms of lunar samples.",
         "The Apollo 11 astronauts collected about 21.5 kg (47.5 pounds) of Moon rocks and soil.",
         "Armstrong and Aldrin returned with roughly 22 kilograms of lunar material."),
    ]),
    ("Boiling eggs", "cooking", [
        "Eggs straight from the fridge may crack when dropped into boiling water; lowering them gently with a spoon helps.",
        "Adding a little vinegar to the water helps egg white set quickly if a shell cracks.",
        "Cooking times for boiled eggs depend on egg size, starting temperature and altitude.",
        "Boiled eggs are used in salads, sandwiches, ramen and as a quick high-protein snack.",
        "A large egg contains about 6 grams of protein and around 70 calories.",
        "Some cooks steam eggs instead of boiling them, which gives similar results.",
    ], [
        ("how long does it take to boil an egg", "Boil eggs about 6 to 7 minutes for a soft yolk and 10 to 12 minutes for hard-boiled.",
         "Once the water is boiling, large eggs take about 6 minutes for a runny yolk, 8 minutes for jammy and 10 to 12 minutes for fully hard-boiled.",
         "For hard-boiled eggs, simmer them for 10 to 12 minutes; for soft-boiled eggs, 6 to 7 minutes is enough."),
        ("why do hard boiled eggs get a green ring", "The green ring is iron sulfide, formed when eggs are overcooked.",
         "A grey-green ring around the yolk forms when eggs are cooked too long: sulfur from the white reacts with iron in the yolk to make iron sulfide.",
         "Overcooking causes the green layer on hard-boiled yolks; cooling the eggs quickly in cold water helps prevent it."),
        ("how to make boiled eggs easier to peel", "Use eggs that are a week or more old and cool them in ice water before peeling.",
         "Older eggs peel more easily because their pH rises and the membrane sticks less to the white; chilling them in ice water also helps.",
         "To make boiled eggs easy to peel, start them in already boiling water, then plunge them into ice water and peel under running water."),
        ("why put boiled eggs in ice water", "An ice bath stops the eggs cooking and makes them easier to peel.",
         "Putting boiled eggs in ice water stops the cooking immediately, so the yolks do not overcook and the shells come off more easily.",
         "Cooks plunge boiled eggs into iced water to halt cooking and shrink the egg slightly away from the shell."),
        ("how long do hard boiled eggs last in the fridge", "Hard-boiled eggs keep for about one week in the refrigerator.",
         "Hard-boiled eggs, peeled or unpeeled, can be stored in the fridge for up to a week.",
         "Keep hard-boiled eggs refrigerated and eat them within seven days."),
    ]),
    ("Braising", "cooking", [
        "Braised dishes include pot roast, coq au vin, osso buco and red-cooked pork.",
        "Wine, stock, beer or tomatoes are common braising liquids.",
        "Braised meat is often better the next day, after the flavours have had time to develop.",
        "The liquid left after braising can be reduced into a rich sauce.",
        "Vegetables such as fennel, cabbage and leeks can also be braised.",
        "A slow cooker or pressure cooker can be used for braise-style recipes.",
    ], [
        ("what is braising", "Braising is browning food and then cooking it slowly in a small amount of liquid in a covered pot.",
         "Braising is a combination cooking method: the food is first seared in fat and then simmered gently, covered, in a little liquid.",
         "To braise means to brown meat or vegetables and finish them with long, slow cooking in a lidded pot with some liquid."),
        ("what is the difference between braising and stewing", "Braising uses large pieces partly covered in liquid; stewing uses small pieces fully submerged.",
         "Braising generally involves larger cuts only partly covered by liquid, while stewing uses bite-sized pieces completely covered.",
         "The main difference is the amount of liquid and the size of the pieces: stews are small chunks in lots of liquid, braises are larger cuts in less."),
        ("what cuts of meat are best for braising", "Tough cuts rich in connective tissue, such as chuck, short ribs, shanks and shoulder, are best for braising.",
         "Choose tough, well-worked cuts like beef chuck, short ribs, lamb shanks and pork shoulder for braising, because their collagen melts into gelatin.",
         "Braising suits inexpensive cuts with plenty of collagen, such as brisket and oxtail, which become tender after hours of cooking."),
        ("what temperature should you braise at", "Braise in an oven at around 150 to 165 degrees Celsius (300 to 325 °F), keeping the liquid at a gentle simmer.",
         "Most braises cook best in a low oven, about 300 to 325 °F, so the liquid barely simmers.",
         "A braise should bubble gently, not boil; an oven set to roughly 150 degrees Celsius is usual."),
        ("what pot is best for braising", "A heavy lidded pot such as a cast-iron Dutch oven is best for braising.",
         "A heavy Dutch oven with a tight lid is the classic braising pot because it holds heat evenly and can go from stovetop to oven.",
         "Use a thick-bottomed casserole or enamelled cast-iron pot with a lid for braising."),
    ]),
    ("Sous vide", "cooking", [
        "Sous vide cooking is popular in restaurants because it gives consistent results.",
        "Food cooked sous vide is often seared quickly in a hot pan afterwards to add colour and flavour.",
        "Zip-top bags can be used for sous vide if the air is pushed out using the water displacement method.",
        "Eggs can be cooked sous vide in their shells without a bag.",
        "Because the water never goes above the target temperature, sous vide food is hard to overcook.",
        "Sous vide is also used for vegetables, fish and custards.",
    ], [
        ("what does sous vide mean", "Sous vide is French for under vacuum.",
         "The term sous vide means under vacuum in French, because food is sealed in vacuum bags before cooking.",
         "Sous vide, French for under vacuum, is a method in which sealed food is cooked in a precisely controlled water bath."),
        ("what temperature to sous vide steak medium rare", "For medium-rare steak, sous vide at about 54 to 57 degrees Celsius (129 to 134 °F).",
         "Set the water bath to around 131 °F (55 °C) for a medium-rare steak and cook for one to four hours.",
         "Medium-rare steak cooked sous vide needs a water temperature of roughly 54 to 56 degrees Celsius."),
        ("what is an immersion circulator", "An immersion circulator is a device that heats and circulates water at a precise temperature for sous vide.",
         "An immersion circulator clips onto a pot and heats and stirs the water to hold a set temperature, usually within a tenth of a degree.",
         "Home sous vide cooking uses an immersion circulator, a stick-shaped heater with a pump that keeps a water bath at an exact temperature."),
        ("who invented sous vide cooking", "Sous vide was developed in France in the 1970s; chef Georges Pralus used it for foie gras.",
         "French chef Georges Pralus developed sous vide in 1974 to cook foie gras with less shrinkage, and Bruno Goussault later set out its scientific basis.",
         "The modern sous vide method goes back to 1970s France, where Georges Pralus and Bruno Goussault refined vacuum-sealed low-temperature cooking."),
        ("is sous vide cooking safe", "Sous vide is safe if food is held long enough at the right temperature to pasteurise it.",
         "Sous vide cooking is safe when food stays at a given temperature long enough to kill bacteria; lower temperatures simply need longer times.",
         "Food safety in sous vide depends on time and temperature together: chicken at 60 °C, for example, is pasteurised after about half an hour."),
    ]),
    ("Blanching", "cooking", [
        "Blanching is used for vegetables such as broccoli, green beans, peas and asparagus.",
        "Salt the blanching water generously to season the vegetables.",
        "Use a large pot of water so the temperature does not drop too much when vegetables are added.",
        "Blanched vegetables can be prepared ahead and reheated quickly before serving.",
        "Tomatoes and peaches are blanched briefly so their skins slip off easily.",
        "A spider strainer or slotted spoon makes it easy to move vegetables from the pot to the ice bath.",
    ], [
        ("what is blanching in cooking", "Blanching means boiling food briefly and then cooling it quickly in ice water.",
         "Blanching is a technique in which vegetables or fruit are dipped in boiling water for a short time and then plunged into iced water.",
         "To blanch food is to partly cook it in boiling water for a minute or two and stop the cooking with cold water."),
        ("why blanch vegetables before freezing", "Blanching stops enzyme activity that would spoil colour, flavour and texture in the freezer.",
         "Vegetables are blanched before freezing to inactivate enzymes that otherwise cause loss of flavour, colour and nutrients during storage.",
         "Without blanching, frozen vegetables turn dull and tough over time because natural enzymes keep working."),
        ("how long to blanch green beans", "Blanch green beans for about 2 to 3 minutes.",
         "Green beans need about three minutes in boiling water before being moved to an ice bath.",
         "Blanch small whole green beans for 2 minutes and larger ones for up to 3 minutes."),
        ("what is shocking vegetables", "Shocking means plunging blanched vegetables into ice water to stop the cooking.",
         "Shocking is the step after blanching in which vegetables are dropped into iced water to halt cooking and set their colour.",
         "Chefs shock vegetables in an ice bath right after boiling them so they stay crisp and bright green."),
        ("how to blanch almonds", "Soak almonds in boiling water for about a minute, drain, rinse in cold water and squeeze off the skins.",
         "To blanch almonds, pour boiling water over them, leave for 60 seconds, cool under cold water and pinch each nut to slip off its skin.",
         "Blanched almonds are made by briefly boiling raw almonds so that their brown skins loosen and can be pressed off."),
    ]),
    ("Bread proofing", "cooking", [
        "Bread dough rises because yeast ferments sugars and produces carbon dioxide gas.",
        "Sourdough bread relies on wild yeast and lactic acid bacteria instead of commercial yeast.",
        "A banneton, or proofing basket, helps shape and support dough during the final rise.",
        "Enriched doughs with butter, eggs and sugar usually rise more slowly.",
        "Bakers score the top of a loaf with a blade just before baking so it expands evenly.",
        "Dough can be retarded in the refrigerator overnight to develop more flavour.",
    ], [
        ("what does proofing bread mean", "Proofing is the final rise of shaped dough before baking.",
         "Proofing, or proving, is the last rising stage, when shaped dough rests so yeast can fill it with gas before it goes into the oven.",
         "In bread making, proofing refers to letting the shaped loaf rise one final time before baking."),
        ("what temperature should bread dough proof at", "Dough proofs best at about 24 to 27 degrees Celsius (75 to 80 °F).",
         "The ideal proofing temperature for most yeast doughs is around 75 to 80 °F, or about 24 to 27 °C.",
         "A warm spot of about 25 degrees Celsius gives a steady rise; colder dough proofs more slowly."),
        ("how do you know when dough is proofed", "Use the poke test: a gentle poke that springs back slowly means the dough is ready.",
         "To check proofing, press the dough lightly with a floured finger; if the dent springs back slowly and partly, it is ready to bake.",
         "Properly proofed dough has grown noticeably and a fingertip dent fills back in slowly rather than immediately."),
        ("what happens if you overproof bread", "Overproofed dough can collapse and bake into a flat, dense loaf with a sour taste.",
         "If bread overproofs, the gluten weakens and the gas escapes, so the loaf may deflate, spread and bake flat.",
         "Dough left to proof too long loses structure and collapses in the oven, giving a loaf with large holes and a sunken top."),
        ("what is autolyse", "Autolyse is resting flour and water together before adding yeast and salt, so gluten develops with less kneading.",
         "Autolyse is a technique in which flour and water are mixed and left to rest for 20 minutes to an hour before the other ingredients are added.",
         "During an autolyse the flour fully hydrates and enzymes begin breaking down starch and protein, making dough easier to knead."),
    ]),
    ("Giraffe", "animal", [
        "Giraffes live in the savannas and open woodlands of Africa.",
        "A giraffe's coat pattern is unique to each animal, like a fingerprint.",
        "Giraffes feed mostly on the leaves of acacia trees, which they pull off with their tongues.",
        "Giraffes have a very high blood pressure to pump blood up their long necks.",
        "Giraffes can run at up to about 55 kilometres per hour over short distances.",
        "Giraffe numbers have fallen sharply in recent decades because of habitat loss and poaching.",
    ], [
        ("how tall is a giraffe", "Giraffes are the tallest land animals, with males reaching about 5.5 metres (18 feet).",
         "Adult male giraffes stand up to about 5.5 m (18 ft) tall, and females up to about 4.5 m, making giraffes the tallest living land animals.",
         "The tallest animal on land is the giraffe; a full-grown bull can be as tall as 18 feet."),
        ("how many bones are in a giraffe neck", "A giraffe's neck has seven vertebrae, the same number as a human neck.",
         "Despite its length, the giraffe neck contains only seven vertebrae, just like ours, but each one can be over 25 cm long.",
         "Giraffes, like almost all mammals, have seven neck bones; theirs are simply very elongated."),
        ("how long is a giraffe tongue", "A giraffe's tongue is about 45 to 50 centimetres long.",
         "A giraffe's tongue measures roughly 18 to 20 inches (45 to 50 cm) and is dark purple-black, perhaps to protect it from sunburn.",
         "Giraffes have prehensile tongues up to about half a metre long, which they wrap around branches."),
        ("how long are giraffes pregnant", "Giraffe pregnancy lasts about 15 months.",
         "The gestation period of a giraffe is around 15 months, and the calf drops about two metres to the ground at birth.",
         "A female giraffe carries her calf for roughly 450 to 460 days."),
        ("how much do giraffes sleep", "Giraffes sleep very little, often less than two hours a day in short naps.",
         "In the wild giraffes sleep only briefly, often in naps of a few minutes that add up to less than two hours in 24 hours.",
         "Giraffes need remarkably little sleep; much of it is taken standing up in short bursts."),
    ]),
    ("Octopus", "animal", [
        "Octopuses are cephalopods, a group of molluscs that also includes squid and cuttlefish.",
        "Octopuses have no bones and can squeeze through any opening larger than their beak.",
        "Octopuses are known for solving puzzles, opening jars and escaping from aquarium tanks.",
        "When threatened, an octopus can squirt a cloud of dark ink to confuse predators.",
        "The giant Pacific octopus is the largest octopus species.",
        "Each octopus arm has hundreds of suckers that can taste as well as grip.",
    ], [
        ("how many hearts does an octopus have", "An octopus has three hearts.",
         "Octopuses have three hearts: two pump blood through the gills and the third pumps it around the rest of the body.",
         "An octopus has one main systemic heart and two smaller branchial hearts, three in total."),
        ("why is octopus blood blue", "Octopus blood is blue because it uses copper-based hemocyanin to carry oxygen.",
         "The blood of an octopus is blue because its oxygen carrier is hemocyanin, a copper-containing protein, rather than iron-based haemoglobin.",
         "Copper in the protein hemocyanin gives octopus blood its blue colour and works well in cold, low-oxygen water."),
        ("how long do octopuses live", "Most octopuses live only one to two years.",
         "Octopuses have short lives; many species live about a year, and the giant Pacific octopus lives three to five years.",
         "The typical octopus lifespan is only one to two years, and females usually die soon after their eggs hatch."),
        ("how do octopuses change color", "Octopuses change colour using skin cells called chromatophores that they expand or shrink with muscles.",
         "An octopus changes colour in a fraction of a second by squeezing or stretching thousands of pigment sacs called chromatophores in its skin.",
         "Colour change in octopuses is controlled by the nervous system, which opens and closes chromatophores and reflective cells."),
        ("how many neurons does an octopus have", "An octopus has about 500 million neurons, two thirds of them in its arms.",
         "The common octopus has roughly 500 million neurons, and about two thirds are located in its arms rather than its brain.",
         "With around half a billion nerve cells, mostly in the arms, an octopus has a nervous system comparable in size to a dog's."),
    ]),
    ("Honeybee", "animal", [
        "A honeybee colony has one queen, thousands of female workers and, in summer, a few hundred male drones.",
        "Honeybees pollinate many crops, including almonds, apples and blueberries.",
        "Worker bees build honeycomb from wax secreted by glands on their abdomen.",
        "Honeybees can sting only once because their barbed stinger stays in the skin.",
        "Colony collapse disorder drew attention to threats to bees such as mites, pesticides and disease.",
        "Beekeepers use smoke to calm bees when opening a hive.",
    ], [
        ("what is the waggle dance", "The waggle dance is how honeybees tell nestmates the direction and distance of food.",
         "Honeybees perform the waggle dance to communicate where flowers are: the angle of the run shows direction relative to the sun and its length shows distance.",
         "By waggling along a straight line on the comb, a forager bee signals the direction and distance of a food source, a behaviour decoded by Karl von Frisch."),
        ("how long does a worker bee live", "A worker honeybee lives about five to six weeks in summer and several months in winter.",
         "Summer worker bees live only about six weeks because they work so hard, while winter bees can survive four to six months.",
         "The lifespan of a worker bee ranges from around 40 days in the busy season to several months over winter."),
        ("how many eggs does a queen bee lay a day", "A queen bee can lay up to about 1,500 to 2,000 eggs a day.",
         "In peak season a healthy queen honeybee can lay up to 2,000 eggs a day, more than her own body weight.",
         "A laying queen may produce roughly 1,500 eggs daily in spring and summer."),
        ("how do bees make honey", "Bees make honey by collecting nectar, adding enzymes and evaporating water until it thickens.",
         "Worker bees swallow nectar, add enzymes that break down sugars, deposit it in comb cells and fan it with their wings until most of the water evaporates.",
         "Honey is nectar that bees have processed with enzymes and dried by fanning, then sealed in wax cells."),
        ("what do drone bees do", "Drones are male bees whose main role is to mate with a queen; they do not collect food or sting.",
         "Drone bees are the males of the colony; they have no stinger, do not forage and exist mainly to mate with young queens.",
         "The only job of a drone is to mate with a virgin queen from another colony, after which it dies."),
    ]),
    ("Emperor penguin", "animal", [
        "Emperor penguins live only in Antarctica.",
        "Emperor penguins eat fish, krill and squid.",
        "Emperor penguin colonies can contain thousands of breeding pairs on sea ice.",
        "Adult emperor penguins have a yellow-orange patch on the neck and a pale yellow breast.",
        "Loss of sea ice caused by warming is a major threat to emperor penguins.",
        "Emperor penguin chicks are covered in grey down with a black and white head.",
    ], [
        ("how tall is an emperor penguin", "Emperor penguins stand about 1.1 to 1.2 metres tall.",
         "The emperor penguin is the tallest and heaviest penguin, reaching about 115 cm in height and up to 40 kg.",
         "An adult emperor penguin stands roughly 45 inches tall, larger than any other living penguin."),
        ("who incubates the emperor penguin egg", "The male emperor penguin incubates the egg on his feet for about two months.",
         "After laying, the female passes the egg to the male, who balances it on his feet under a fold of skin for about 65 days without eating.",
         "Male emperor penguins keep the single egg warm on top of their feet through the Antarctic winter while the females feed at sea."),
        ("how deep can emperor penguins dive", "Emperor penguins can dive to more than 500 metres.",
         "Emperor penguins are the deepest-diving birds, reaching depths of over 500 m and staying underwater for up to about 20 minutes.",
         "Dives deeper than 500 metres have been recorded for emperor penguins hunting fish and squid."),
        ("when do emperor penguins breed", "Emperor penguins breed during the Antarctic winter.",
         "Emperor penguins are the only penguins that breed in the Antarctic winter, with eggs laid in May or June.",
         "The emperor penguin breeding season starts in autumn, around April, and the eggs are incubated through the dark winter months."),
        ("how do emperor penguins stay warm", "Emperor penguins stay warm with dense feathers, fat and by huddling in large groups.",
         "Emperor penguins survive the cold with layers of feathers and fat and by huddling together, taking turns on the windy outside.",
         "Huddles of thousands of emperor penguins can keep the temperature inside the group well above freezing."),
    ]),
    ("Human heart", "body", [
        "The heart is a muscular organ located in the chest, slightly to the left of the breastbone.",
        "The heart is enclosed in a protective sac called the pericardium.",
        "Coronary arteries supply the heart muscle itself with oxygen-rich blood.",
        "Regular exercise strengthens the heart and lowers the resting heart rate.",
        "Heart valves keep blood flowing in one direction.",
        "An electrocardiogram, or ECG, records the electrical activity of the heart.",
    ], [
        ("how many times does the heart beat in a day", "The heart beats about 100,000 times a day.",
         "An average adult heart beats around 100,000 times a day, or more than 2.5 billion times over a lifetime.",
         "At roughly 70 beats per minute, your heart beats about 100,000 times every 24 hours."),
        ("what is a normal resting heart rate", "A normal resting heart rate for adults is 60 to 100 beats per minute.",
         "For most adults a resting heart rate between 60 and 100 beats per minute is considered normal; fit athletes may be as low as 40.",
         "Doctors regard 60 to 100 beats a minute at rest as the normal range for an adult's pulse."),
        ("how many chambers does the human heart have", "The human heart has four chambers: two atria and two ventricles.",
         "The heart has four chambers, the left and right atria on top and the left and right ventricles below.",
         "Blood passes through four heart chambers, two upper atria that receive blood and two lower ventricles that pump it out."),
        ("what is the sinoatrial node", "The sinoatrial node is the heart's natural pacemaker in the right atrium.",
         "The sinoatrial (SA) node is a cluster of cells in the wall of the right atrium that sets the rhythm of each heartbeat.",
         "The heartbeat starts in the sinoatrial node, the natural pacemaker that sends electrical impulses through the heart muscle."),
        ("how much blood does the heart pump per minute", "At rest the heart pumps about 5 litres of blood per minute.",
         "A resting adult heart pumps roughly 5 litres (about 1.3 gallons) of blood each minute, the whole blood volume.",
         "Cardiac output at rest is around five litres a minute and can rise several times during hard exercise."),
    ]),
    ("Kidneys", "body", [
        "Most people have two kidneys, each about the size of a fist.",
        "The kidneys are bean-shaped organs.",
        "Chronic kidney disease is often caused by diabetes and high blood pressure.",
        "Kidney stones form when minerals in urine crystallise.",
        "Dialysis filters the blood artificially when the kidneys fail.",
        "Drinking enough water helps the kidneys remove waste.",
    ], [
        ("what do the kidneys do", "The kidneys filter waste and extra water from the blood to make urine and help control blood pressure.",
         "The kidneys remove waste products and excess fluid from the blood, balance salts and minerals, and make hormones that control blood pressure and red blood cell production.",
         "Your kidneys clean your blood, produce urine, keep electrolytes in balance and release hormones such as renin and erythropoietin."),
        ("how much blood do the kidneys filter a day", "The kidneys filter about 180 litres of fluid from the blood each day.",
         "Every day the kidneys filter around 180 litres of plasma, returning almost all of it and producing 1 to 2 litres of urine.",
         "About 50 gallons of blood fluid pass through the kidneys' filters daily, but only a litre or two leaves as urine."),
        ("what is a nephron", "A nephron is the basic filtering unit of the kidney.",
         "Each kidney contains about one million nephrons, tiny units made of a glomerulus and a tubule that filter blood and form urine.",
         "The nephron is the working unit of the kidney: it filters blood in the glomerulus and adjusts the fluid in its tubule."),
        ("where are the kidneys located", "The kidneys lie at the back of the abdomen, one on each side of the spine, just below the ribs.",
         "The kidneys sit against the back muscles in the upper abdomen, on either side of the spine, partly protected by the lower ribs.",
         "Your two kidneys are located below the rib cage, behind the belly, one on each side of the backbone; the right one sits a little lower."),
        ("can you live with one kidney", "Yes, most people can live a normal healthy life with one kidney.",
         "People can live normally with a single healthy kidney, which grows slightly to take over the work of two.",
         "One working kidney is enough for a healthy life, which is why living donors can give a kidney."),
    ]),
    ("Liver", "body", [
        "The liver is a reddish-brown organ with two main lobes.",
        "Hepatitis means inflammation of the liver and is often caused by viruses.",
        "Cirrhosis is scarring of the liver caused by long-term damage such as heavy drinking or hepatitis.",
        "The liver receives blood from the intestines through the portal vein.",
        "Liver function tests measure enzymes and proteins in the blood.",
        "Fatty liver disease is increasingly common and is linked to obesity.",
    ], [
        ("what is the largest internal organ", "The liver is the largest internal organ, weighing about 1.5 kilograms.",
         "The largest internal organ in the human body is the liver, which weighs around 1.4 to 1.6 kg in adults.",
         "Apart from the skin, the liver is the biggest organ of the body, about three pounds in an adult."),
        ("can the liver regenerate", "Yes, the liver can regrow to its full size even after a large part is removed.",
         "The liver can regenerate: after part of it is removed, the remaining tissue grows back to close to its original size within weeks.",
         "Surgeons can remove up to about two thirds of a healthy liver because the rest will regenerate."),
        ("what does bile do", "Bile, made by the liver, helps digest and absorb fats in the small intestine.",
         "Bile is a greenish-yellow fluid produced by the liver and stored in the gallbladder; its salts break fats into small droplets for digestion.",
         "The liver makes bile to emulsify dietary fats and to carry waste such as bilirubin out of the body."),
        ("where is the liver located", "The liver is in the upper right part of the abdomen, under the diaphragm.",
         "The liver sits in the upper right abdomen, below the diaphragm and protected by the lower right ribs.",
         "You will find the liver on the right side of the belly, just under the rib cage and above the stomach and intestines."),
        ("how long does it take the liver to process alcohol", "The liver processes about one standard drink per hour.",
         "On average the liver can break down roughly one standard drink of alcohol an hour, and nothing speeds this up.",
         "It takes the body about an hour to clear one unit or standard drink of alcohol, mostly by liver enzymes."),
    ]),
    ("Mount Kilimanjaro", "landmark", [
        "Kilimanjaro rises from farmland and rainforest to an arctic summit zone.",
        "Climbers pass through five climate zones on Kilimanjaro, from cultivated slopes to glacier and bare rock.",
        "Popular routes up Kilimanjaro include the Marangu, Machame and Lemosho routes.",
        "Altitude sickness is the main risk for Kilimanjaro climbers, and slower itineraries improve success rates.",
        "The glaciers on Kilimanjaro have shrunk dramatically over the past century.",
        "Climbers must be accompanied by licensed guides and usually hire porters.",
    ], [
        ("how tall is mount kilimanjaro", "Mount Kilimanjaro is 5,895 metres (19,341 feet) tall, the highest mountain in Africa.",
         "Kilimanjaro's highest point, Uhuru Peak, stands at 5,895 m (19,341 ft), making it the tallest mountain in Africa.",
         "At almost 5,900 metres, Kilimanjaro is the highest peak in Africa and the tallest free-standing mountain in the world."),
        ("what country is kilimanjaro in", "Mount Kilimanjaro is in northeastern Tanzania, near the Kenyan border.",
         "Kilimanjaro is located in Tanzania, in the Kilimanjaro Region close to the border with Kenya.",
         "The mountain lies entirely within Tanzania, although it is often photographed from Amboseli in Kenya."),
        ("who first climbed kilimanjaro", "Hans Meyer and Ludwig Purtscheller made the first recorded ascent of Kilimanjaro in 1889.",
         "The first recorded climb to the summit of Kilimanjaro was made in October 1889 by the German geographer Hans Meyer and Austrian climber Ludwig Purtscheller.",
         "Kilimanjaro was first summited in 1889 by Meyer and Purtscheller, helped by local guide Yohani Lauwo."),
        ("how long does it take to climb kilimanjaro", "Most Kilimanjaro climbs take 5 to 9 days, depending on the route.",
         "A typical Kilimanjaro trek lasts between five and nine days; longer routes allow better acclimatisation.",
         "Plan on six to eight days to climb Kilimanjaro, including the descent."),
        ("is kilimanjaro a volcano", "Yes, Kilimanjaro is a dormant stratovolcano with three cones: Kibo, Mawenzi and Shira.",
         "Kilimanjaro is a large dormant volcano made of three volcanic cones, Kibo, Mawenzi and Shira; Kibo still has fumaroles.",
         "The mountain is a dormant volcano; its highest cone, Kibo, last erupted hundreds of thousands of years ago."),
    ]),
    ("Lake Baikal", "landmark", [
        "Lake Baikal is a rift lake in a long crescent shape, about 636 kilometres long.",
        "More than 300 rivers flow into Lake Baikal, but only one, the Angara, flows out.",
        "The Trans-Siberian Railway runs along the southern shore of Lake Baikal.",
        "Lake Baikal water is famously clear, with visibility of up to 40 metres in places.",
        "Lake Baikal is a UNESCO World Heritage Site.",
        "Olkhon is the largest island in Lake Baikal.",
    ], [
        ("what is the deepest lake in the world", "Lake Baikal in Siberia is the deepest lake in the world, at about 1,642 metres.",
         "The world's deepest lake is Lake Baikal in Russia, with a maximum depth of 1,642 m (5,387 ft).",
         "Lake Baikal reaches a depth of more than 1.6 kilometres, deeper than any other lake on Earth."),
        ("how old is lake baikal", "Lake Baikal is about 25 to 30 million years old, the oldest lake in the world.",
         "Lake Baikal formed some 25 to 30 million years ago, making it the oldest existing freshwater lake.",
         "Scientists estimate that Baikal is around 25 million years old, far older than most lakes, which are only thousands of years old."),
        ("how much of the world's fresh water is in lake baikal", "Lake Baikal holds about 20 percent of the world's unfrozen surface fresh water.",
         "Lake Baikal contains about 23,600 cubic kilometres of water, roughly a fifth of the world's fresh surface water that is not frozen.",
         "Around 20 percent of Earth's liquid fresh surface water is stored in Lake Baikal, more than all the North American Great Lakes combined."),
        ("what is a nerpa", "The nerpa is the Baikal seal, a freshwater seal found only in Lake Baikal.",
         "The nerpa, or Baikal seal, is one of the few freshwater seals in the world and lives only in Lake Baikal.",
         "Lake Baikal is home to the nerpa, a small endemic seal whose ancestors may have reached the lake from the Arctic."),
        ("where is lake baikal", "Lake Baikal is in southern Siberia, Russia, near the border with Mongolia.",
         "Lake Baikal lies in southeastern Siberia in Russia, between Irkutsk Oblast and the Republic of Buryatia.",
         "You will find Lake Baikal in the south of Russian Siberia, north of Mongolia, with Irkutsk the nearest large city."),
    ]),
    ("Amazon River", "landmark", [
        "The Amazon River flows through Peru, Colombia and Brazil.",
        "The Amazon basin covers about 7 million square kilometres, much of it rainforest.",
        "River dolphins, piranhas and giant arapaima fish live in the Amazon.",
        "Manaus, in the middle of the rainforest, is the largest city on the Amazon's banks.",
        "In the rainy season the Amazon floods huge areas of forest called varzea.",
        "Large ocean ships can travel up the Amazon as far as Manaus.",
    ], [
        ("how long is the amazon river", "The Amazon River is about 6,400 kilometres long.",
         "The Amazon is roughly 6,400 km (4,000 miles) long, and some measurements make it longer than the Nile.",
         "At around 6,400 kilometres, the Amazon is the second-longest river in the world by most counts."),
        ("where does the amazon river start", "The Amazon rises in the Andes of southern Peru.",
         "The most distant source of the Amazon is in the Peruvian Andes, in streams flowing from the slopes of Nevado Mismi or the Mantaro river.",
         "The Amazon begins as meltwater streams high in the Andes mountains of Peru and flows east to the Atlantic."),
        ("why are there no bridges over the amazon river", "There are no bridges because the river runs mostly through sparsely populated rainforest with soft, shifting banks.",
         "No bridge crosses the Amazon because most of it flows through remote forest with few roads, and its banks are soft and flood every year.",
         "The Amazon has no bridges: there is little need for them in the thinly populated basin, and the wide floodplain makes construction very hard."),
        ("how much water does the amazon river discharge", "The Amazon discharges about 209,000 cubic metres of water per second, the most of any river.",
         "The Amazon carries more water than any other river, about 209,000 cubic metres per second, around a fifth of all river flow into the oceans.",
         "By volume the Amazon is the largest river on Earth, pouring roughly 200,000 cubic metres of fresh water into the Atlantic every second."),
        ("what is the pororoca", "The pororoca is a tidal bore that travels up the Amazon from the Atlantic.",
         "The pororoca is a tidal bore on the lower Amazon: a wave up to four metres high that runs upstream when the tide comes in.",
         "Surfers ride the pororoca, a long tidal wave that pushes up the mouth of the Amazon against the current."),
    ]),
    ("Bamboo", "plant", [
        "Bamboo grows in tropical and temperate regions of Asia, Africa and the Americas.",
        "Bamboo is used for building, scaffolding, furniture, flooring and paper.",
        "Young bamboo shoots are eaten as a vegetable in many Asian cuisines.",
        "Running bamboo spreads by underground rhizomes and can become invasive in gardens.",
        "There are more than 1,400 species of bamboo.",
        "Bamboo fibre is made into textiles, though processing often uses chemicals.",
    ], [
        ("how fast does bamboo grow", "Some bamboo species can grow up to about 90 centimetres (35 inches) in a single day.",
         "Bamboo is the fastest-growing plant in the world: certain species grow as much as 91 cm (about 3 feet) in 24 hours.",
         "Giant bamboo shoots can lengthen by almost a metre per day during their growth spurt."),
        ("is bamboo a tree or grass", "Bamboo is a grass, a member of the grass family Poaceae.",
         "Although it can grow as tall as a tree, bamboo is a grass belonging to the family Poaceae.",
         "Bamboo is not a tree but a giant woody grass, related to wheat and rice."),
        ("how often does bamboo flower", "Many bamboo species flower only once every several decades, sometimes over 100 years, and then die.",
         "Many bamboos flower at very long intervals, from 60 to 130 years, and all plants of a species bloom at once and then die.",
         "Bamboo flowering is rare: some species bloom only once in a century, in mass flowering events across a whole region."),
        ("how much bamboo does a panda eat", "A giant panda eats about 12 to 38 kilograms of bamboo a day.",
         "Giant pandas spend up to 14 hours a day eating and consume between 12 and 38 kg of bamboo daily.",
         "Because bamboo is low in nutrients, a panda has to eat roughly 20 to 40 pounds or more of it each day."),
        ("why is bamboo so strong", "Bamboo is strong because of long cellulose fibres in its hollow, jointed stems, giving it high tensile strength.",
         "Bamboo owes its strength to dense bundles of cellulose fibres running along the culm and to its hollow tube shape with solid nodes.",
         "The tensile strength of bamboo fibres rivals that of some steels, because the fibres are long and tightly packed near the outer wall."),
    ]),
    ("Sunflower", "plant", [
        "Sunflowers are annual plants in the daisy family, Asteraceae.",
        "A sunflower head is made of many tiny flowers called florets.",
        "Sunflower seeds are eaten roasted as a snack and pressed to make cooking oil.",
        "Sunflower fields attract many visitors and photographers in late summer.",
        "Vincent van Gogh painted a famous series of still lifes of sunflowers.",
        "The sunflower is the state flower of Kansas.",
    ], [
        ("do sunflowers follow the sun", "Young sunflowers track the sun from east to west, but mature flowers stay facing east.",
         "Growing sunflower buds turn to follow the sun during the day and swing back east at night; once they bloom, most stop moving and face east.",
         "Only young sunflowers follow the sun, a behaviour called heliotropism; mature heads stay pointed towards the east."),
        ("where are sunflowers native to", "Sunflowers are native to North America.",
         "The common sunflower is native to North America, where it was domesticated by Indigenous farmers.",
         "Sunflowers originated in the Americas and were brought to Europe by Spanish explorers in the 16th century."),
        ("why are sunflower seeds arranged in spirals", "The seeds grow at a constant angle of about 137.5 degrees, which makes spirals that pack them efficiently.",
         "Sunflower seeds form interlocking spirals because each new seed appears at the golden angle of about 137.5 degrees, giving counts that are often Fibonacci numbers.",
         "The spiral pattern in a sunflower head packs as many seeds as possible, and the numbers of spirals are usually consecutive Fibonacci numbers such as 34 and 55."),
        ("which country produces the most sunflower oil", "Ukraine and Russia are the world's largest producers of sunflower oil.",
         "Ukraine and Russia together produce more than half of the world's sunflower oil.",
         "Most of the world's sunflower seed oil comes from Ukraine and Russia, followed by Argentina and the European Union."),
        ("how tall do sunflowers grow", "Common garden sunflowers grow about 1.5 to 3 metres tall, and some varieties grow even taller.",
         "Most tall sunflower varieties reach 8 to 12 feet, while dwarf types stay under 3 feet.",
         "Sunflowers typically grow between 1.5 and 3.5 metres tall, and record plants have topped 9 metres."),
    ]),
]

# Sentences that fit any topic of a kind ({n} = topic name); they answer nothing.
KIND_FILLERS = {
    "city": ["Hotels in {n} range from budget hostels to international chains.",
             "The best time to visit {n} depends on what you want to see and do.",
             "{n} has a growing number of cafes, galleries and markets worth exploring.",
             "Public transport, taxis and ride-hailing apps are all available in {n}."],
    "element": ["Like most elements, {n} has several isotopes with different numbers of neutrons.",
                "Always handle laboratory chemicals with care and follow the safety data sheet.",
                "See the periodic table for the position of {n} among the other elements.",
                "The properties of {n} are listed in standard chemistry reference tables."],
    "planet": ["{n} can be located in the night sky with a free planetarium app.",
               "Astronomers continue to study {n} with telescopes and space probes.",
               "The planets of the solar system differ greatly in size, composition and temperature.",
               "Amateur astronomers often photograph {n} with small backyard telescopes."],
    "disease": ["This information is not a substitute for professional medical advice.",
                "If you think you may have {n}, contact your doctor or a local clinic.",
                "Public health agencies regularly update their guidance on {n}.",
                "Good hygiene and up-to-date vaccinations help prevent many infections."],
    "instrument": ["Lessons for beginners of all ages are offered by many music schools.",
                   "Prices for a student instrument vary widely, and renting is a common first step.",
                   "Regular practice and a good teacher matter more than an expensive instrument.",
                   "Many composers have written solo and orchestral music featuring this instrument."],
    "event": ["Historians still debate the causes and consequences of these events.",
              "Museums and memorials keep the memory of these events alive.",
              "This period is a common topic in school history lessons.",
              "Anniversaries are marked by exhibitions, documentaries and commemorations."],
    "cooking": ["Follow these simple tips for the best results every time.",
                "Cooking times vary with the size of the food and the equipment you use.",
                "Save this method to your favourite recipes so you can find it again.",
                "Most home cooks need only basic kitchen equipment to get started."],
    "animal": ["Zoos and wildlife parks help visitors learn about animals like the {n}.",
               "Conservation groups monitor wild populations and their habitats.",
               "Scientists are still learning about the behaviour of many animal species.",
               "Documentaries have made the {n} familiar to viewers around the world."],
    "body": ["This article is for general information only; talk to a doctor about health concerns.",
             "A balanced diet, exercise and not smoking support the health of every organ.",
             "Medical students learn the anatomy of the organs in detail.",
             "Regular check-ups can pick up problems before symptoms appear."],
    "landmark": ["Tour operators offer packages that include transport, guides and accommodation.",
                 "Visitors should check local regulations and permits before travelling.",
                 "The region attracts scientists, photographers and adventure travellers.",
                 "The best season to visit depends on the weather and on what you want to do."],
    "plant": ["Gardeners can find seeds and young plants at most garden centres.",
              "Plants need the right light, water and soil to thrive.",
              "Botanists classify plants by their flowers, seeds and genetic relationships.",
              "Many plants have cultural and symbolic meanings in different countries."],
}

LEADS = ["{n} facts.", "{n}: overview.", "Quick answer:", "Best Answer:", "Answer:", "Overview.",
         "Frequently asked questions.", "Updated guide.", "{n} - key facts and figures.",
         "Did you know?", "Summary.", "Here is what you need to know."]

# ---------------------------------------------------------------------------------------------
# Knowledge base for the 44b-style part: invented machine-learning papers in ten sub-areas.
# Area: (name, problem sentences, data sets, metric, lower is better, short topic).
# Paper: (title, method name, what the method does (abstract wording), reviewer's paraphrase).
# ---------------------------------------------------------------------------------------------

AREAS = [
    ("retrieval", [
        "Neural retrievers that embed queries and passages into a shared vector space have become the standard first stage of search pipelines.",
        "Dense and learned sparse retrievers depend heavily on the quality and quantity of labelled query-passage pairs.",
        "Retrieval systems must balance effectiveness against index size and query latency.",
    ], ["MS MARCO", "BEIR", "Natural Questions", "TREC DL 2019"], "nDCG@10", False, "passage retrieval", [
        ("Contrastive Pre-training for Dense Passage Retrieval", "CoPR",
         "which pre-trains a bi-encoder on pseudo query-passage pairs cropped from the same document before fine-tuning on labelled data",
         "pre-trains a dual-encoder retriever by treating two spans sampled from one document as positives, then fine-tunes it on labelled queries"),
        ("Contrastive Pre-Training for Dense Passage Retrieval v2", "CoPR-2",
         "which replaces random cropping with spans selected by a language model and adds hard negatives mined from a lexical index",
         "revisits contrastive pre-training for dual encoders, picking positive spans with an LLM and adding BM25-mined negatives"),
        ("Learned Sparse Retrieval with Vocabulary Expansion Regularisers", "ExpandReg",
         "which learns term weights over the whole vocabulary and penalises expansion terms with a latency-aware regulariser",
         "learns weighted bag-of-words representations and limits how many expansion terms are added through a regulariser tied to query cost"),
        ("Late Interaction Retrieval with Token Pruning", "PruneCol",
         "which keeps only the most salient token embeddings of each passage, cutting index size while keeping late-interaction scoring",
         "shrinks a multi-vector index by dropping low-importance token vectors from each passage and scoring with MaxSim over the rest"),
        ("Denoising Relevance Labels for Retriever Training", "LabelClean",
         "which uses a cross-encoder teacher to flag likely false negatives and mislabelled positives before distillation",
         "argues that passage ranking labels are noisy and cleans them with a cross-encoder before distilling into a bi-encoder"),
        ("Query Reformulation Agents for Open-Domain Retrieval", "ReformAgent",
         "in which a language model iteratively rewrites the query based on retrieved results and aggregates evidence across rounds",
         "lets an LLM rewrite a search query several times, reading the results after each round, and merges what it finds"),
    ]),
    ("reinforcement learning", [
        "Deep reinforcement learning agents still need large amounts of environment interaction to learn good policies.",
        "Learning control policies from rewards alone is difficult when rewards are sparse or delayed.",
        "Reinforcement learning from fixed datasets or preferences raises problems of distribution shift and exploitation.",
    ], ["Atari 100k", "the DeepMind Control Suite", "MuJoCo locomotion tasks", "Procgen"], "normalised return", False,
     "reinforcement learning", [
        ("Model-Based Exploration with Uncertainty-Aware World Models", "UnWM",
         "which trains an ensemble of latent dynamics models and rewards the agent for visiting states where the members disagree",
         "uses disagreement among several learned dynamics models as an intrinsic bonus that pushes the agent to explore"),
        ("Offline Reinforcement Learning via Conservative Advantage Weighting", "CAW",
         "which weights behaviour-cloned actions by a pessimistic advantage estimate so the policy avoids out-of-distribution actions",
         "learns from a fixed dataset by imitating logged actions in proportion to a lower-bound advantage, keeping the policy close to the data"),
        ("Sample-Efficient Policy Optimisation with Replay Ratio Scaling", "RRS",
         "which raises the number of gradient updates per environment step and periodically resets the last layers to avoid plasticity loss",
         "shows that many more updates per environment interaction can work if the final layers of the network are re-initialised from time to time"),
        ("Reward Model Ensembles for Robust Preference Learning", "RMEnsemble",
         "which trains several reward models from human preference data and optimises the policy against their lower confidence bound",
         "tackles reward hacking when optimising against a learned preference model by using a pessimistic aggregate of an ensemble"),
        ("Hierarchical Skill Discovery from Unlabelled Trajectories", "HiSkill",
         "which segments offline trajectories into reusable skills with a variational objective and trains a high-level planner over them",
         "extracts temporally extended behaviours from unlabelled demonstrations and composes them with a high-level controller"),
        ("Multi-Agent Credit Assignment with Counterfactual Baselines", "CoBa",
         "which estimates each agent's contribution by comparing the team return with a learned counterfactual in which that agent takes a default action",
         "addresses credit assignment in cooperative multi-agent RL through per-agent counterfactual baselines"),
    ]),
    ("diffusion models", [
        "Diffusion models generate high-quality samples but require many network evaluations at inference time.",
        "Score-based generative models have become the leading approach for image and video synthesis.",
        "Denoising diffusion models are increasingly applied beyond images, to video, audio and scientific data.",
    ], ["ImageNet 256x256", "CIFAR-10", "MS-COCO", "LSUN Bedroom"], "FID", True, "diffusion-based generation", [
        ("Fast Sampling of Diffusion Models with Learned Step Schedules", "StepLearn",
         "which learns a non-uniform discretisation of the reverse process so that high-quality images can be drawn in ten steps",
         "speeds up generation by optimising where to place a small number of denoising steps along the noise schedule"),
        ("Consistency Distillation for Single-Step Image Generation", "OneStep",
         "which distils a pretrained diffusion model into a network that maps any noisy input directly to the clean image",
         "trains a student that jumps from noise to an image in a single evaluation by enforcing consistency along the teacher's trajectories"),
        ("Latent Diffusion with Adaptive Tokenisers", "AdaTok",
         "which compresses images into a variable number of latent tokens depending on content complexity before running diffusion",
         "lets the autoencoder of a latent diffusion model spend more tokens on detailed images and fewer on simple ones"),
        ("Classifier-Free Guidance Without Quality Collapse", "SafeCFG",
         "which rescales the guided prediction to match the norm of the conditional prediction, avoiding oversaturation at high guidance weights",
         "fixes the oversaturated colours produced by strong classifier-free guidance by renormalising the guided noise estimate"),
        ("Diffusion Models for Protein Backbone Design", "FoldDiff",
         "which generates protein backbones by diffusing over residue frames with an SE(3)-equivariant network",
         "applies an equivariant denoising model to design new protein structures"),
        ("Video Diffusion with Temporal Attention Factorisation", "TempFact",
         "which factorises attention into spatial and temporal blocks and trains jointly on images and short clips",
         "generates short videos by splitting attention across space and time and mixing image and video training data"),
    ]),
    ("graph neural networks", [
        "Graph neural networks learn representations of nodes, edges and whole graphs by passing messages along edges.",
        "Message passing networks are widely used for molecules, social networks and knowledge graphs, yet their expressive power is limited.",
        "Scaling graph learning to deep architectures and very large graphs remains an open problem.",
    ], ["OGB", "Cora", "QM9", "ZINC"], "accuracy", False, "graph learning", [
        ("Graph Transformers with Structural Positional Encodings", "SPEGT",
         "which feeds random-walk and Laplacian eigenvector encodings into a standard transformer over nodes",
         "shows that a plain transformer over graph nodes becomes competitive once it receives random-walk and spectral position features"),
        ("Mitigating Oversmoothing in Deep Graph Neural Networks", "PairNorm-D",
         "which adds a pairwise-distance normalisation layer that keeps node representations from collapsing as depth grows",
         "proposes a normalisation layer that preserves distances between node embeddings, allowing GNNs with dozens of layers"),
        ("Equivariant Message Passing for Molecular Property Prediction", "EqMP",
         "which passes vector-valued messages that rotate with the molecule, capturing directional information",
         "builds a rotation-equivariant message passing network for predicting molecular energies and forces"),
        ("Scalable Graph Learning via Subgraph Sampling", "SubSamp",
         "which trains on small sampled subgraphs with a bias correction so that billion-edge graphs fit on one GPU",
         "makes GNN training on huge graphs feasible by sampling subgraphs and correcting the bias of the resulting estimator"),
        ("Link Prediction with Labelling Tricks Revisited", "LinkLab",
         "which analyses why node labelling helps link prediction and proposes a cheaper distance-based labelling",
         "studies the labelling trick for predicting missing edges and offers an efficient variant based on shortest-path distances"),
        ("Graph Neural Networks for Combinatorial Optimisation", "GNN-CO",
         "which trains a GNN to output heuristics for routing and scheduling problems that a local search then refines",
         "learns heuristics for vehicle routing and job scheduling with a graph network and improves its outputs with local search"),
    ]),
    ("language model alignment", [
        "Aligning large language models with human preferences is usually done with reinforcement learning from human feedback.",
        "Instruction-tuned language models can be helpful, but they may also be verbose, sycophantic or unsafe.",
        "Preference-based fine-tuning relies on reward signals that are expensive to collect and easy to exploit.",
    ], ["AlpacaEval", "MT-Bench", "TruthfulQA", "HH-RLHF"], "win rate", False, "LLM alignment", [
        ("Direct Preference Optimisation with Length Control", "LC-DPO",
         "which adds a length-normalised margin to the preference loss so that models stop favouring verbose answers",
         "modifies preference optimisation to penalise responses that win only because they are longer"),
        ("Self-Rewarding Language Models via Iterative Judging", "SelfJudge",
         "in which the model judges its own candidate responses and is trained on the resulting preference pairs over several rounds",
         "has the language model act as its own judge to create preference data and repeats the process for several iterations"),
        ("Calibrated Refusals for Safe Instruction Following", "CalRef",
         "which trains the model to refuse only when harm is likely, using a classifier-guided data mix that reduces over-refusal",
         "tries to cut unnecessary refusals of benign requests while keeping refusals of genuinely harmful ones"),
        ("Reward Overoptimisation in RLHF: A Scaling Study", "ScaleRO",
         "which measures how proxy reward and true quality diverge as policy optimisation proceeds, across reward model sizes",
         "empirically studies how optimising a learned reward too hard degrades real quality, as a function of model scale"),
        ("Constitutional Feedback from Small Models", "SmallCon",
         "which uses a small critic model guided by written principles to label preferences for a much larger model",
         "replaces human preference labels with critiques from a smaller model that follows a short list of principles"),
        ("Detecting Sycophancy in Chat Assistants", "SycoBench",
         "which builds a benchmark of prompts in which users assert false beliefs and measures how often assistants agree",
         "introduces a test set measuring whether chat models go along with users' incorrect claims"),
    ]),
    ("efficient transformers", [
        "The cost of self-attention grows quadratically with sequence length, which limits transformers on long inputs.",
        "Serving large language models is expensive because decoding is memory-bound and sequential.",
        "Making transformers cheaper to train and run without losing quality is a central practical concern.",
    ], ["WikiText-103", "The Pile", "Long Range Arena", "C4"], "perplexity", True, "efficient sequence modelling", [
        ("Linear Attention with Gated State Updates", "GatedLin",
         "which replaces softmax attention with a recurrent state updated through data-dependent gates, giving linear time in sequence length",
         "swaps quadratic attention for a gated recurrence that runs in time linear in the sequence length"),
        ("Parallel Decoding Kernels for Long-Context Inference", "SplitKV",
         "which splits the key-value cache across thread blocks during decoding so the whole GPU works on a single long sequence",
         "speeds up generation with long prompts by parallelising attention over chunks of the cache"),
        ("Mixture-of-Experts with Token-Choice Load Balancing", "TCMoE",
         "which routes each token to experts with a balancing bias updated online instead of an auxiliary loss",
         "proposes a routing method for sparse expert layers that keeps experts evenly loaded without an auxiliary loss term"),
        ("Four-Bit Weight Quantisation without Retraining", "Q4Fix",
         "which rounds weights to four bits layer by layer using second-order information to compensate the rounding error",
         "post-training quantises large language models to 4-bit weights with an error-compensating layer-wise procedure"),
        ("Speculative Decoding with Draft Heads", "DraftHeads",
         "which attaches light prediction heads to the base model to propose several tokens that are verified in one forward pass",
         "accelerates autoregressive generation by guessing future tokens with extra heads and checking them in parallel"),
        ("Sparse Attention Patterns Learned from Data", "LearnSparse",
         "which learns which query-key blocks to compute via a lightweight router trained jointly with the model",
         "learns a block-sparse attention mask instead of relying on hand-designed local or strided patterns"),
    ]),
    ("federated learning", [
        "Federated learning trains models across many devices without collecting their data centrally.",
        "Clients in federated learning hold heterogeneous, non-identically distributed data and have limited bandwidth.",
        "Privacy, communication cost and robustness are the main obstacles to deploying federated learning.",
    ], ["FEMNIST", "CIFAR-10 with Dirichlet splits", "Shakespeare", "StackOverflow"], "test accuracy", False,
     "federated learning", [
        ("Personalised Federated Learning with Shared Representations", "FedShare",
         "which learns a global feature extractor across clients while each client keeps its own classifier head",
         "splits the model into a shared body trained by all clients and local heads that stay on each device"),
        ("Communication-Efficient Federated Optimisation via Gradient Sketching", "FedSketch",
         "which compresses client updates with count sketches and recovers the heavy coordinates on the server",
         "reduces uplink traffic by sending sketched gradients and reconstructing the largest entries at the server"),
        ("Differentially Private Federated Learning at Scale", "DPFL",
         "which combines client-level differential privacy with adaptive clipping to train language models on millions of devices",
         "trains models on user devices with formal client-level privacy guarantees and tunes the clipping norm automatically"),
        ("Handling Client Drift in Non-IID Federated Learning", "DriftFix",
         "which corrects local updates with control variates that estimate the difference between client and global gradients",
         "tackles the divergence of local models under heterogeneous data by means of control variates"),
        ("Federated Learning with Asynchronous Client Updates", "AsyncFed",
         "which lets clients report at their own pace and down-weights stale updates according to their delay",
         "removes synchronous rounds so slow devices do not hold up training, discounting stale contributions"),
        ("Byzantine-Robust Aggregation for Federated Learning", "RobAgg",
         "which aggregates client updates with a coordinate-wise trimmed median plus a reputation score to resist malicious clients",
         "defends federated training against poisoned updates through robust aggregation and a per-client reputation"),
    ]),
    ("robustness", [
        "Deep networks are vulnerable to small adversarial perturbations and to shifts between training and test distributions.",
        "Reliable deployment of classifiers requires robustness to corrupted, shifted and maliciously crafted inputs.",
        "Models often rely on spurious features that fail outside the training distribution.",
    ], ["CIFAR-10", "ImageNet", "ImageNet-C", "RobustBench"], "robust accuracy", False, "model robustness", [
        ("Adversarial Training with Adaptive Perturbation Budgets", "AdaEps",
         "which assigns each training example its own perturbation radius based on its distance to the decision boundary",
         "uses per-example attack strengths during adversarial training instead of one global epsilon"),
        ("Certified Robustness via Randomised Smoothing of Diffusion Denoisers", "DiffSmooth",
         "which denoises Gaussian-noised inputs with an off-the-shelf diffusion model before classifying them, yielding certified radii",
         "obtains certified robustness by placing a pretrained diffusion denoiser in front of a standard classifier"),
        ("Test-Time Adaptation under Distribution Shift", "EntAdapt",
         "which updates batch-normalisation parameters by minimising prediction entropy on unlabelled test batches",
         "adapts a trained model to shifted test data by minimising entropy over the normalisation layers"),
        ("Spurious Correlations and Last-Layer Retraining", "LastFix",
         "which shows that retraining only the final layer on a small group-balanced set removes much of the reliance on spurious features",
         "argues that standard training already learns good features and that reweighting the last layer fixes spurious correlation problems"),
        ("Out-of-Distribution Detection with Energy Scores", "EnergyOOD",
         "which flags inputs as out-of-distribution using the log-sum-exp of classifier logits instead of the softmax confidence",
         "uses an energy function of the logits rather than the maximum softmax probability to detect unfamiliar inputs"),
        ("Backdoor Detection in Pretrained Encoders", "BackScan",
         "which identifies trojaned encoders by searching for small input patches that collapse embeddings to a single point",
         "spots encoders with hidden triggers by optimising a patch that makes many inputs map to the same embedding"),
    ]),
    ("speech processing", [
        "Speech recognition and synthesis have improved rapidly with large-scale neural models.",
        "Most of the world's languages lack the transcribed audio needed to train speech systems.",
        "Speech models must cope with noise, accents and real-time latency constraints.",
    ], ["LibriSpeech", "Common Voice", "VoxCeleb", "FLEURS"], "word error rate", True, "speech processing", [
        ("Self-Supervised Speech Representations with Masked Prediction", "MaskSpeech",
         "which masks spans of audio frames and predicts discrete cluster targets learned in earlier iterations",
         "learns speech features without transcripts by predicting cluster labels for masked regions of the audio"),
        ("Multilingual Speech Recognition for Low-Resource Languages", "LowASR",
         "which trains one model on over a hundred languages with language-adaptive adapters and shared subword units",
         "builds a single recogniser covering many languages, adding small per-language adapters to help languages with little data"),
        ("Streaming Speech Recognition with Chunked Attention", "ChunkASR",
         "which processes audio in fixed chunks with limited look-ahead so transcripts appear with low latency",
         "makes an attention-based recogniser usable in real time by restricting attention to chunks with a small look-ahead"),
        ("Zero-Shot Voice Cloning with Neural Codec Language Models", "CodecVC",
         "which treats text-to-speech as language modelling over discrete audio codec tokens prompted with a three-second sample",
         "synthesises speech in an unseen speaker's voice by predicting audio codec tokens from a short prompt"),
        ("Speaker Verification with Self-Distillation", "SpkDistil",
         "which trains speaker embeddings without labels by matching a student and a momentum teacher on different crops of an utterance",
         "learns speaker identity embeddings from unlabelled audio through teacher-student agreement across augmented segments"),
        ("Speech Translation without Intermediate Transcripts", "DirectST",
         "which translates source speech directly into target-language text with a speech-pretrained encoder and a text decoder",
         "skips the transcription step and maps spoken input straight to translated text"),
    ]),
    ("time series", [
        "Forecasting many related time series over long horizons is important in energy, traffic and finance.",
        "Time series models must handle seasonality, trends, missing values and irregular sampling.",
        "Deep learning for time series has produced many architectures whose benefits over simple baselines are debated.",
    ], ["ETTh1", "Electricity", "Traffic", "Weather"], "mean squared error", True, "time series modelling", [
        ("Patch-Based Transformers for Long-Horizon Forecasting", "PatchTS",
         "which splits each channel into patches treated as tokens and models channels independently",
         "tokenises time series into sub-series patches and processes each variable separately with a transformer"),
        ("Are Linear Models Enough for Time Series Forecasting?", "LinFore",
         "which shows that a single linear layer on decomposed trend and seasonal components matches complex transformers",
         "questions the value of transformer forecasters by showing that simple linear mappings do as well"),
        ("Foundation Models for Zero-Shot Forecasting", "ZeroCast",
         "which pretrains a decoder-only model on a large corpus of real and synthetic series and forecasts new series without fine-tuning",
         "pretrains one forecaster on many datasets and applies it to unseen series out of the box"),
        ("Probabilistic Forecasting with Conditional Diffusion", "DiffCast",
         "which generates future trajectories by denoising conditioned on an encoding of the observed history",
         "uses a diffusion model to sample plausible futures given past observations, giving calibrated prediction intervals"),
        ("Anomaly Detection in Multivariate Time Series with Graph Attention", "GraphAD",
         "which learns relations between sensors with graph attention and flags anomalies where forecasts and observations disagree",
         "learns a sensor graph and uses forecast errors to find anomalies in multivariate industrial data"),
        ("Irregularly Sampled Time Series with Neural ODEs", "ODE-GRU",
         "which models hidden state evolution between observations with a neural ODE and updates it at each observation",
         "handles unevenly spaced clinical measurements by evolving a latent state continuously between observations"),
    ]),
]

WEB_DOCS = [
    ("guides/retrieval-evaluation", "A Practical Guide to Evaluating Retrieval Systems",
     "This guide walks through the everyday work of evaluating a search or retrieval system. It explains how to build a "
     "set of test queries, how to collect relevance judgements from annotators, and why shallow judgement pools can "
     "penalise new systems that retrieve unjudged documents. It compares common metrics such as MRR, nDCG and recall, "
     "shows how to compute them with simple scripts, and discusses when a difference between two systems is large "
     "enough to matter. A final section lists frequent mistakes, including tuning on the test set and ignoring "
     "duplicate documents in the collection."),
    ("notes/diffusion-training-on-one-gpu", "Notes on Training Small Diffusion Models on One GPU",
     "These notes collect practical advice for training image diffusion models with a single consumer graphics card. "
     "They cover choosing a small U-Net, using mixed precision and gradient checkpointing to save memory, and picking a "
     "noise schedule and learning rate that train stably. The author describes experiments on small image data sets, "
     "how long training took, and how sample quality changed as the number of sampling steps was reduced. The notes end "
     "with a checklist for debugging blurry or saturated samples and with suggestions for evaluating results without "
     "large compute budgets."),
]


# ---------------------------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------------------------

SEED = 20261201
N_BACKGROUND_PER_TOPIC = 12
N_MIXED_PER_TOPIC = 6   # passages mixing background of neighbouring topics of the same kind
# Number of answering passages per fact, cycled over the facts (the official positive is one of them).
ANSWERING_CYCLE = [2, 3, 4, 2, 5, 6, 3, 7, 1, 4, 3, 5]
N_DEV, N_TEST = 40, 20
FORCED_SPLIT = {
    "what is the capital of peru": "dev",
    "when did the berlin wall fall": "dev",
    "how long does it take to boil an egg": "test",
    "what is the boiling point of mercury": "train",
    "how many hearts does an octopus have": "train",
}
# Planted train duplicates: (text, base query whose fact it asks, where to insert in the train file).
PLANTED = [
    ("What is the capital of Peru?", "what is the capital of peru"),            # (a) = dev query
    ("How long does it take to boil an egg?", "how long does it take to boil an egg"),  # (b) = test query
    ("What is the boiling point of Mercury?", "what is the boiling point of mercury"),  # (c) repeat
    ("How many hearts does an octopus have?", "how many hearts does an octopus have"),  # (d) 2nd time
    ("how many hearts does an  octopus have", "how many hearts does an octopus have"),  # (d) 3rd time
    ("When did the Berlin Wall fall", "when did the berlin wall fall"),          # (e) first train copy
    ("when did the berlin wall fall?", "when did the berlin wall fall"),         # (e) repeat and = dev
]


def normalize(text: str) -> str:
    """The dedup rule of the card: lower case, Unicode punctuation removed, whitespace collapsed."""
    text = "".join(c for c in text.lower() if not unicodedata.category(c).startswith("P"))
    return " ".join(text.split())


def display_name(name: str) -> str:
    return name.split(" (")[0]


def words(text: str) -> int:
    return len(text.split())


def fillers_of(topic):
    name, kind = display_name(topic[0]), topic[1]
    mid = name if kind in ("city", "planet", "event", "landmark") else name.lower()
    return [f.format(n=mid) for f in KIND_FILLERS[kind]]


def build_passage(rng, topic, fact_sentence, used):
    """One web-style passage: optional lead, the fact sentence (if any), background and filler sentences."""
    name, kind, background, _ = topic
    n = display_name(name)
    fillers = fillers_of(topic)
    for _attempt in range(200):
        target = rng.randint(34, 80)
        pool = background[:]
        rng.shuffle(pool)
        body = []
        if fact_sentence:
            body.append(fact_sentence)
        for sentence in pool:
            if sum(map(words, body)) >= target:
                break
            body.append(sentence)
        if rng.random() < 0.35:
            body.insert(rng.randint(1 if fact_sentence else 0, len(body)), rng.choice(fillers))
        if fact_sentence and len(body) > 1 and rng.random() < 0.45:
            # the answer is not always the first sentence
            body.remove(fact_sentence)
            body.insert(rng.randint(1, len(body)), fact_sentence)
        while sum(map(words, body)) > 88 and len(body) > 2:
            body.pop(next(i for i in range(len(body) - 1, -1, -1) if body[i] != fact_sentence))
        if rng.random() < 0.25:
            body.insert(0, rng.choice(LEADS).format(n=n))
        text = " ".join(body)
        if 30 <= words(text) <= 90 and text not in used:
            used.add(text)
            return text
    raise RuntimeError(f"cannot build a passage for {name}")


def build_mixed_passage(rng, topics, used):
    """A distractor about several neighbouring topics of one kind (e.g. two planets)."""
    for _attempt in range(200):
        chosen = rng.sample(topics, min(len(topics), rng.choice([2, 2, 3])))
        body = []
        for topic in chosen:
            body += rng.sample(topic[2], rng.choice([1, 2]))
        if rng.random() < 0.3:
            body.insert(rng.randint(0, len(body)), rng.choice(fillers_of(chosen[0])))
        if rng.random() < 0.5:
            rng.shuffle(body)
        while sum(map(words, body)) > 88 and len(body) > 2:
            body.pop()
        text = " ".join(body)
        if 30 <= words(text) <= 90 and text not in used:
            used.add(text)
            return text
    raise RuntimeError("cannot build a mixed passage")


def hex_id(*parts, length=40):
    return hashlib.sha1(":".join(map(str, parts)).encode()).hexdigest()[:length]


def openreview_id(rng):
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "".join(rng.choice(alphabet) for _ in range(10))


def make_msmarco(rng):
    facts = []
    for t, topic in enumerate(TOPICS):
        for j, (query, answer, p1, p2) in enumerate(topic[3]):
            facts.append({"topic": t, "query": query, "answer": answer, "phrasings": [p1, p2, answer]})
    keys = [normalize(f["query"]) for f in facts]
    assert len(set(keys)) == len(keys), "base queries must be distinct after normalisation"

    # splits
    order = list(range(len(facts)))
    rng.shuffle(order)
    split = {}
    for i in order:
        split[i] = FORCED_SPLIT.get(facts[i]["query"])
    free = [i for i in order if split[i] is None]
    n_dev = N_DEV - sum(1 for s in split.values() if s == "dev")
    n_test = N_TEST - sum(1 for s in split.values() if s == "test")
    for k, i in enumerate(free):
        split[i] = "dev" if k < n_dev else "test" if k < n_dev + n_test else "train"

    # answering passages per fact
    passages = []   # (text, topic, fact index or None)
    used = set()
    for k, i in enumerate(order):
        f = facts[i]
        n = 5 if f["query"] in FORCED_SPLIT else ANSWERING_CYCLE[k % len(ANSWERING_CYCLE)]
        f["n_answering"] = n
        start = rng.randrange(3)
        for m in range(n):
            sentence = f["phrasings"][(start + m) % 3]
            passages.append((build_passage(rng, TOPICS[f["topic"]], sentence, used), f["topic"], i))
    for t, topic in enumerate(TOPICS):
        for _ in range(N_BACKGROUND_PER_TOPIC):
            passages.append((build_passage(rng, topic, None, used), t, None))
    kinds = {}
    for topic in TOPICS:
        kinds.setdefault(topic[1], []).append(topic)
    for kind, members in kinds.items():
        for _ in range(N_MIXED_PER_TOPIC * len(members)):
            passages.append((build_mixed_passage(rng, members, used), None, None))

    rng.shuffle(passages)
    pid = 1000
    collection = []
    answering = {i: [] for i in range(len(facts))}
    background = {t: [] for t in range(len(TOPICS))}
    for text, t, i in passages:
        pid += rng.randint(1, 12)
        collection.append((str(pid), text))
        if i is not None:
            answering[i].append(str(pid))
        elif t is not None:
            background[t].append(str(pid))

    # queries and ids
    by_query = {f["query"]: i for i, f in enumerate(facts)}
    train_rows = [(facts[i]["query"], i) for i in order if split[i] == "train"]
    dev_rows = [(facts[i]["query"], i) for i in order if split[i] == "dev"]
    test_rows = [(facts[i]["query"], i) for i in order if split[i] == "test"]
    for text, base in PLANTED:
        i = by_query[base]
        base_pos = next((p for p, (q, _) in enumerate(train_rows) if q == base), -1)
        already = max((p for p, (q, _) in enumerate(train_rows) if normalize(q) == normalize(base)), default=-1)
        lo = max(base_pos, already) + 1
        train_rows.insert(rng.randint(lo, len(train_rows)), (text, i))
    qids = rng.sample(range(2000, 1_200_000), len(train_rows) + len(dev_rows) + len(test_rows))
    train = [(str(qids.pop()), q, i) for q, i in train_rows]
    dev = [(str(qids.pop()), q, i) for q, i in dev_rows]
    test = [(str(qids.pop()), q, i) for q, i in test_rows]

    # qrels: one official positive (a few have two); some official positives are weak, i.e. a passage
    # of the right topic that does not actually answer (as MS MARCO's noisy labels sometimes are).
    weak_pool = {t: ids[:] for t, ids in background.items()}
    stats = {"weak": [], "two": [], "extra": {}}

    def qrels_for(rows, offset):
        lines = []
        for k, (qid, _, i) in enumerate(rows):
            ans = answering[i]
            if (k + offset) % 9 == 4 and len(ans) >= 3 and weak_pool[facts[i]["topic"]]:
                positives = [weak_pool[facts[i]["topic"]].pop(0)]
                stats["weak"].append(qid)
            else:
                first = ans[(k + offset) % len(ans)]
                positives = [first]
                if (k + offset) % 10 == 7 and len(ans) >= 4:
                    positives.append(ans[(k + offset + 1) % len(ans)])
                    stats["two"].append(qid)
            stats["extra"][qid] = len([p for p in ans if p not in positives])
            lines += [f"{qid}\t0\t{p}\t1" for p in positives]
        return lines

    qrels_train = qrels_for(train, 0)
    qrels_dev = qrels_for(dev, 3)

    # planted duplicates, computed with the dedup rule itself
    heldout_first = {}
    for qid, q, _ in dev + test:
        heldout_first.setdefault(normalize(q), qid)
    train_first, excluded = {}, []
    for qid, q, _ in train:
        key = normalize(q)
        if key in heldout_first:
            excluded.append((qid, "heldout", heldout_first[key]))
        elif key in train_first:
            excluded.append((qid, "repeat", train_first[key]))
        train_first.setdefault(key, qid)

    files = {
        "collection.tsv": [f"{p}\t{t}" for p, t in collection],
        "audit.qrels.tsv": audit_qrels(facts, test, answering, background),
        "queries.train.tsv": [f"{qid}\t{q}" for qid, q, _ in train],
        "queries.dev.small.tsv": [f"{qid}\t{q}" for qid, q, _ in dev],
        "queries.test.tsv": [f"{qid}\t{q}" for qid, q, _ in test],
        "qrels.train.tsv": qrels_train,
        "qrels.dev.small.tsv": qrels_dev,
        "answers.dev.small.jsonl": [json.dumps({"query_id": qid, "answers": [facts[i]["answer"]]}, ensure_ascii=False)
                                    for qid, _, i in dev],
        "planted_duplicates.tsv": ["query_id\treason\tduplicate_of"] + ["\t".join(r) for r in excluded],
    }
    return files, stats


def audit_qrels(facts, test, answering, background) -> list[str]:
    """Graded judgments (TREC, `qid 0 pid grade`) of the held-out test queries, for the label audit. The
    grades follow from how each passage was written: 3 states the query's fact; 1 is about the query's
    topic but states none of its facts (background); 0 answers a fact of a topic of another kind. The
    corpus has no passage written to be partly useful, so no pair has grade 2. No randomness: the other
    generated files do not change."""
    lines = []
    for qid, _, i in test:
        topic = facts[i]["topic"]
        kind = TOPICS[topic][1]
        others = [j for j in range(len(facts)) if TOPICS[facts[j]["topic"]][1] != kind]
        unrelated = [answering[others[(i * 7 + k * 13) % len(others)]][0] for k in range(2)]
        judged = ([(p, 3) for p in sorted(answering[i])[:2]] + [(p, 1) for p in sorted(background[topic])[:2]]
                  + [(p, 0) for p in unrelated])
        lines += [f"{qid} 0 {p} {grade}" for p, grade in judged]
    return lines


ABSTRACT_OPENERS = ["We propose {name}, a method {core}.", "In this paper we introduce {name}, an approach {core}.",
                    "We present {name}, a simple framework {core}.", "This work introduces {name}, a technique {core}."]
ABSTRACT_MIDDLE = [
    "Unlike prior work, {name} needs no additional labelled data and adds little computational overhead.",
    "The method is easy to implement on top of existing pipelines and comes with a theoretical motivation.",
    "We analyse the design choices behind {name} and show which components matter most in ablations.",
    "Our analysis explains why previous approaches fail in this setting and how {name} avoids those failures.",
]
ABSTRACT_CLOSERS = ["Code and trained models will be released.", "We release our code to support future research.",
                    "These results suggest a practical path for {topic} at scale.",
                    "We hope this work serves as a strong baseline for {topic}."]
REVIEW_OPENERS = ["This paper {para}.", "The submission {para}.", "The work {para}.",
                  "Summary: the paper {para}.", "In short, this submission {para}."]
REVIEW_NAMED = ["The method, called {name}, is evaluated on {d1} and {d2}.",
                "Experiments with {name} on {d1} and {d2} show consistent gains over the baselines.",
                "The proposed approach is tested on {d1}, {d2} and {d3}, where it improves {metric} over prior methods.",
                "Empirically, the approach is compared against several strong baselines on {d1} and {d2}."]
REVIEW_JUDGEMENTS = [
    "The idea is simple and clearly explained, but the novelty over closely related work is somewhat limited.",
    "Strengths include thorough ablations and a clear presentation; the main weakness is the lack of results at larger scale.",
    "I found the motivation convincing, although some claims in the analysis section are not fully supported by the experiments.",
    "The paper is well written, but the comparison with recent baselines is incomplete and the compute cost is not reported.",
    "Overall this is a solid contribution, though the theoretical part relies on strong assumptions.",
    "The empirical results are promising, but I would like to see variance across random seeds and a discussion of failure cases.",
]
META_OPENERS = ["The reviewers agree that the paper {para}.", "This submission {para}.",
                "All reviewers recognise that the work {para}."]
META_DECISIONS = ["After the rebuttal the reviewers were broadly positive, and I recommend acceptance as a poster.",
                  "Concerns about baselines were partly addressed in the discussion; the recommendation is to accept.",
                  "Despite the clear writing, doubts about novelty remained after the discussion, so I recommend rejection.",
                  "The rebuttal resolved most concerns about the evaluation, and the paper is recommended for acceptance."]
SHORT_REVIEWS = ["Proposes {name} for {topic}. Clear paper, but experiments are limited.",
                 "A method for {topic} ({name}). Good results; novelty is modest.",
                 "The paper studies {topic} and proposes {name}. Well written. Weak baselines.",
                 "{name}: an incremental but useful idea for {topic}."]


def make_44b(rng):
    papers, reviews = [], []
    arxiv_n = 0
    index = 0
    for a, (area, problems, datasets, metric, lower, topic, items) in enumerate(AREAS):
        for p, (title, name, core, para) in enumerate(items):
            r = random.Random(f"{SEED}:{title}")
            ds = r.sample(datasets, 3)
            if lower:
                result = (f"Experiments on {ds[0]}, {ds[1]} and {ds[2]} show that {name} reduces {metric} by "
                          f"{r.randint(5, 30)}% relative to the strongest baseline.")
            else:
                result = (f"Experiments on {ds[0]}, {ds[1]} and {ds[2]} show that {name} improves {metric} by "
                          f"{r.randint(10, 60) / 10:.1f} points over the strongest baseline.")
            abstract = " ".join([
                *r.sample(problems, 2),
                r.choice(ABSTRACT_OPENERS).format(name=name, core=core),
                r.choice(ABSTRACT_MIDDLE).format(name=name), result,
                r.choice(ABSTRACT_CLOSERS).format(topic=topic),
            ])
            s2 = hex_id("s2", title)
            kind = index % 6
            if kind == 4:
                scheme, pid = "openalex", f"W43{90000000 + index * 7919:08d}"[:11]
                url = f"https://openalex.org/{pid}"
            elif kind == 5:
                scheme, pid = "s2", s2
                url = f"https://www.semanticscholar.org/paper/{pid}"
            else:
                arxiv_n += 1
                pid = f"24{(a % 9) + 1:02d}.{(arxiv_n * 613) % 90000 + 1000:05d}"
                scheme, url = "arxiv", f"https://arxiv.org/abs/{pid}"
            s2_id = s2 if (scheme == "s2" or index % 3 == 0) else None
            papers.append({"scheme": scheme, "id": pid, "url": url, "title": title, "abstract": abstract,
                           "s2_id": s2_id})
            if name == "LC-DPO":
                # the same work indexed a second time, under OpenAlex, with the same Semantic Scholar id
                assert s2_id is not None
                dup = f"W4399{index:06d}"
                papers.append({"scheme": "openalex", "id": dup, "url": f"https://openalex.org/{dup}",
                               "title": title, "abstract": abstract, "s2_id": s2_id})

            # reviews
            forum = openreview_id(rng)
            n_rev = 2 if index % 3 != 2 else 1
            for k in range(n_rev):
                note = openreview_id(rng)
                fmt = dict(name=name, para=para, topic=topic, metric=metric, d1=ds[0], d2=ds[1], d3=ds[2])
                if (index + k) % 7 == 3:
                    summary, kind_r = r.choice(SHORT_REVIEWS).format(**fmt), "official_review"
                elif k == 1 and index % 4 == 1:
                    summary = " ".join([r.choice(META_OPENERS).format(**fmt), r.choice(REVIEW_JUDGEMENTS),
                                        r.choice(META_DECISIONS)])
                    kind_r = "meta_review"
                else:
                    parts = [r.choice(REVIEW_OPENERS).format(**fmt), r.choice(REVIEW_NAMED).format(**fmt),
                             r.choice(REVIEW_JUDGEMENTS)]
                    summary, kind_r = " ".join(parts), "official_review"
                summary = summary[0].upper() + summary[1:]
                assert (len(summary) < 200) == (summary in [s.format(**fmt) for s in SHORT_REVIEWS]), summary
                assert len(summary) <= 700, summary
                reviews.append({"note_id": note, "note_url": f"https://openreview.net/forum?id={forum}&noteId={note}",
                                "kind": kind_r, "paper": f"{scheme}:{pid}", "summary": summary})
            index += 1
    for slug, title, abstract in WEB_DOCS:
        wid = "web-" + hex_id("web", slug, length=12)
        papers.append({"scheme": "web", "id": wid, "url": f"https://example.org/{slug}", "title": title,
                       "abstract": abstract, "s2_id": None})
    return ([json.dumps(p, ensure_ascii=False) for p in papers],
            [json.dumps(r, ensure_ascii=False) for r in reviews])


def main(out_dir: Path) -> dict:
    rng = random.Random(SEED)
    files, stats = make_msmarco(rng)
    files["papers44b.jsonl"], files["reviews44b.jsonl"] = make_44b(random.Random(SEED + 1))
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, lines in files.items():
        data = "".join(line + "\n" for line in lines)
        assert "\r" not in data
        (out_dir / name).write_bytes(data.encode("utf-8"))
    return stats


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent
    s = main(target)
    extra = list(s["extra"].values())
    print(f"wrote {target}: weak positives {len(s['weak'])}, two positives {len(s['two'])}, "
          f"queries with 2-6 extra answering passages {sum(2 <= e <= 6 for e in extra)}/{len(extra)}, "
          f"extra answering passages {sum(extra)}")
